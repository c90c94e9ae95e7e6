// A private Synapse for the page's tests of homes that meet (issue 33):
// the venv `scripts/test` installs under .tools/synapse, started on a free
// loopback port with SQLite in a temporary folder, registration only by
// the shared secret and no rate limits. `available()` says whether it is
// installed; a spec skips (saying why) only when it is not.
'use strict';

const { spawn, execFileSync } = require('node:child_process');
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
  execFileSync(PYTHON, ['-m', 'synapse.app.homeserver', '-c', 'homeserver.yaml', '--generate-keys'], { cwd: dir, stdio: 'ignore' });
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
    register(name, password) {
      execFileSync(path.join(VENV, 'bin/register_new_matrix_user'), ['-u', name, '-p', password, '--no-admin', '-k', SECRET, url], { cwd: dir, stdio: 'ignore' });
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
