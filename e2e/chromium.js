// Debian's chromium as every browser run here launches it (never a browser
// download of Playwright's own); the flags keep it off this closed network.
'use strict';

module.exports.CHROMIUM = {
  executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
  args: [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
