# Sourced by scripts/test and bench/setup (issue 38): the Python venvs the
# tests and benches run (llama.cpp's server, Synapse, the A2A SDK, AutoGen)
# are built once per pinned set and kept in the user's cache, so a fresh
# clone of the repository links them instead of reinstalling (llama.cpp's
# wheel alone builds for about 10 minutes without pip's cache).
#
#   ensure_venv NAME KEY READY INSTALL
#
# NAME is the venv's folder under .tools; KEY is every pin that decides its
# contents (the cache folder is named by its hash and the Python version);
# READY is a command that succeeds when .tools/NAME is usable; INSTALL is a
# command given a fresh venv's folder to install into. A venv is built in
# its cache folder and only then marked complete, so a build cut short is
# never linked. FLYBOT_VENV_CACHE names another cache folder.
VENV_CACHE="${FLYBOT_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flybot/venvs}"

venv_cache_dir() {
  local name=$1 key=$2 hash
  hash="$(printf '%s\n%s\n' "$key" "$(python3 -VV)" | sha256sum | cut -c1-16)"
  echo "$VENV_CACHE/$name-$hash"
}

ensure_venv() {
  local name=$1 key=$2 ready=$3 install=$4 dir
  dir="$(venv_cache_dir "$name" "$key")"
  mkdir -p .tools
  # A venv already here that works is kept (a link into the cache, or one
  # made by hand); otherwise a complete cached build is linked.
  if "$ready"; then return 0; fi
  if [ -f "$dir/.flybot-complete" ]; then
    rm -rf ".tools/$name"
    ln -s "$dir" ".tools/$name"
    if "$ready"; then
      echo "Linked the cached venv .tools/$name -> $dir"
      return 0
    fi
  fi
  echo "Building the venv $name in $dir (pip)..."
  rm -rf "$dir"
  mkdir -p "$VENV_CACHE"
  python3 -m venv "$dir"
  "$install" "$dir"
  touch "$dir/.flybot-complete"
  rm -rf ".tools/$name"
  ln -s "$dir" ".tools/$name"
  "$ready"
}
