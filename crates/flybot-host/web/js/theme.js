// The page's theme: light or dark, following the system (prefers-color-scheme) unless the person picked one in Settings (kept in this browser's localStorage).

const KEY = 'flybot.theme';
const CHOICES = ['system', 'light', 'dark'];
const dark = window.matchMedia('(prefers-color-scheme: dark)');

/** The person's choice: 'system' (the default), 'light' or 'dark'. */
export function choice() {
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {}
  return CHOICES.includes(stored) ? stored : 'system';
}

/** Sets `data-theme` on <html> to the theme in force. */
export function apply() {
  const picked = choice();
  const theme = picked === 'system' ? (dark.matches ? 'dark' : 'light') : picked;
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** Keeps `value` as the person's choice and applies it. */
export function set(value) {
  try {
    if (value === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, value);
  } catch {}
  apply();
}

dark.addEventListener('change', apply);
apply();
