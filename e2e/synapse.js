// A private Synapse for the page's tests of homes that meet (issue 33):
// the venv `scripts/test` installs under .tools/synapse, started on a free
// loopback port with SQLite in a temporary folder, registration only by
// the shared secret, no rate limits and bcrypt's fewest rounds (12 cost a
// quarter second a login on two cores). `available()` says whether it is
// installed; a spec skips (saying why) only when it is not.
'use strict';

const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const VENV = path.resolve(__dirname, '../.tools/synapse');
const PYTHON = path.join(VENV, 'bin/python');
const SECRET = 'flybot-e2e-registration';

function available() {
  return fs.existsSync(PYTHON);
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function config(dir, port) {
  const lifted = '{per_second: 100000, burst_count: 100000}';
  return `server_name: "localhost"
pid_file: ${dir}/homeserver.pid
listeners:
  - port: ${port}
    bind_addresses: ['127.0.0.1']
    type: http
    tls: false
    resources:
      - names: [client]
        compress: false
database:
  name: sqlite3
  args:
    database: ${dir}/homeserver.db
media_store_path: ${dir}/media
registration_shared_secret: "${SECRET}"
report_stats: false
signing_key_path: ${dir}/signing.key
trusted_key_servers: []
suppress_key_server_warning: true
bcrypt_rounds: 4
rc_message: ${lifted}
rc_registration: ${lifted}
rc_login:
  address: ${lifted}
  account: ${lifted}
  failed_attempts: ${lifted}
rc_joins:
  local: ${lifted}
  remote: ${lifted}
rc_invites:
  per_room: ${lifted}
  per_user: ${lifted}
  per_issuer: ${lifted}
`;
}

async function startSynapse() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flybot-e2e-synapse-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'homeserver.yaml'), config(dir, port));
  // A fresh ed25519 seed in Synapse's key file form, without a Python
  // process to make it.
  const seed = crypto.randomBytes(32).toString('base64').replace(/=+$/, '');
  fs.writeFileSync(path.join(dir, 'signing.key'), `ed25519 a_test ${seed}\n`);
  const child = spawn(PYTHON, ['-m', 'synapse.app.homeserver', '-c', 'homeserver.yaml'], { cwd: dir, stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(`${url}/_matrix/client/versions`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    // Shared-secret registration over the admin API, as
    // register_new_matrix_user does it.
    async register(name, password) {
      const endpoint = `${url}/_synapse/admin/v1/register`;
      const { nonce } = await (await fetch(endpoint)).json();
      const mac = crypto.createHmac('sha1', SECRET).update([nonce, name, password, 'notadmin'].join('\0')).digest('hex');
      const body = JSON.stringify({ nonce, username: name, password, admin: false, mac });
      const answer = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (!answer.ok) throw new Error(`Synapse did not register ${name}: ${answer.status} ${await answer.text()}`);
      return `@${name}:localhost`;
    },
    stop() {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { available, startSynapse };
