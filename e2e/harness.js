// The browser tests' harness (issue 12, "Tests in a real browser"): a real
// `flybot serve` on a temporary home and a free port, helpers that call the
// channel from Node to set a team up, and two ways to script the model a
// Bot runs on:
//
// - `startMockModel(rules)`: the product's own `flybot mock-model serve
//   --scenario FILE` (README "The mock model"), for fixed answers and tool
//   calls (an approval card needs a `run_command` call);
// - `startScriptedModel()`: a small OpenAI-compatible server in this
//   process whose answers the test writes piece by piece (`held()`), so a
//   streaming answer, Stop in the middle of a round and the token-to-page
//   delay can be seen without sleeping: the test sends a piece, then awaits
//   its text on the page. The mock server writes a whole answer at once,
//   which is too fast for Stop to land mid-answer.
//
// A host points a Bot at either through config.toml's [providers] and
// [models] (crates/flybot-agent/src/model/config.rs): `startHost({models:
// {name: baseUrl}})` declares each as a provider and a model of that name.

'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const REPO = path.resolve(__dirname, '..');

/** The flybot binary: $FLYBOT_BIN, else the workspace's debug build. */
function flybotBin() {
  const bin = process.env.FLYBOT_BIN || path.join(REPO, 'target', 'debug', 'flybot');
  if (!fs.existsSync(bin)) {
    throw new Error(
      `No flybot binary at ${bin}: run \`cargo build -p flybot\` or set FLYBOT_BIN.`,
    );
  }
  return bin;
}

/**
 * Spawns `args` and resolves with the first stdout match of `pattern`
 * (and the child) once it is printed; rejects if the program exits first.
 */
function spawnUntil(args, pattern, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(flybotBin(), args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn' },
      ...options,
    });
    let said = '';
    const lines = readline.createInterface({ input: child.stdout });
    const onExit = (code) =>
      reject(new Error(`flybot ${args[0]} exited (${code}) before it listened:\n${said}`));
    child.once('exit', onExit);
    child.once('error', reject);
    child.stderr.on('data', (chunk) => {
      said += chunk;
      if (process.env.FLYBOT_E2E_VERBOSE) process.stderr.write(chunk);
    });
    lines.on('line', (line) => {
      said += `${line}\n`;
      const match = line.match(pattern);
      if (match) {
        child.off('exit', onExit);
        resolve({ child, match });
      }
    });
  });
}

/** Ends `child` with SIGTERM and waits for it (SIGKILL after 5 s). */
function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** config.toml declaring each `{name: baseUrl}` as a provider and a model. */
function configToml(models) {
  let text = '';
  for (const [name, baseUrl] of Object.entries(models)) {
    text += `[providers.${name}]\nbaseUrl = "${baseUrl}"\n\n`;
    text += `[models.${name}]\nprovider = "${name}"\nmodel = "${name}"\ncontextWindow = 65536\n\n`;
  }
  return text;
}

class ApiFailure extends Error {
  constructor(endpoint, status, error) {
    super(`${endpoint} refused (${status}): ${error && error.code} ${error && error.message}`);
    this.code = error && error.code;
    this.status = status;
  }
}

/** A client of one host's channel, optionally as a signed-in member. */
class Channel {
  constructor(url, token = null) {
    this.url = url;
    this.token = token;
  }

  headers() {
    const headers = { 'content-type': 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    return headers;
  }

  /** POST /api/bot/<endpoint>; the answer without `ok`, or throws. */
  async call(endpoint, body = {}) {
    const response = await fetch(`${this.url}/api/bot/${endpoint}`, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!answer.ok) throw new ApiFailure(endpoint, response.status, answer.error);
    return answer;
  }

  /** GET /api/bot/state (the first one on a fresh home makes the Chief). */
  async state() {
    const response = await fetch(`${this.url}/api/bot/state`, { headers: this.headers() });
    const answer = await response.json();
    if (!answer.ok) throw new ApiFailure('state', response.status, answer.error);
    return answer;
  }

  async createBot(name, fields = {}) {
    return (await this.call('create-bot', { name, ...fields })).bot;
  }

  async createRoom(name, members, fields = {}) {
    return (await this.call('create-room', { name, members, ...fields })).room;
  }

  /** A line in a Bot's chat (`{botId}`) or a room (`{roomId}`). */
  async send(where, text) {
    return this.call('send', { ...where, text });
  }

  async messages(where) {
    return (await this.call('messages', where)).messages;
  }

  /** A card on the board for `botId` (task-create); more fields in `fields`. */
  async createTask(botId, title, fields = {}) {
    return (await this.call('task-create', { botId, title, ...fields })).task;
  }

  /** An invitation code (auth-invite). */
  async invite(name) {
    const answer = await this.call('auth-invite', name ? { name } : {});
    return answer.invitation ? answer.invitation.code : answer.code;
  }

  /** Redeems `code` as `name`; a Channel that calls as that member. */
  async redeem(code, name) {
    const answer = await this.call('auth-redeem', { code, name });
    return new Channel(this.url, answer.session.token);
  }
}

/**
 * Starts `flybot serve` on a fresh temporary home and a free port.
 * `models`: `{name: baseUrl}` written to config.toml before the start;
 * `config`: more config.toml text after them; `args`: more `serve`
 * arguments (`--store postgres://…`); `home`: a home to share with another
 * host (kept at stop).
 * Answers `{url, home, api (a Channel), stop()}`.
 */
async function startHost({ models = {}, config = '', args = [], home: shared = null } = {}) {
  const home = shared || fs.mkdtempSync(path.join(os.tmpdir(), 'flybot-e2e-'));
  if (Object.keys(models).length || config) {
    fs.writeFileSync(path.join(home, 'config.toml'), configToml(models) + config);
  }
  const { child, match } = await spawnUntil(
    ['serve', '--home', home, '--listen', '127.0.0.1:0', ...args],
    /Sign in as the owner: (http:\/\/[^/\s]+)\/\?token=(\S+)/,
  );
  const [, url, token] = match;
  return {
    url,
    home,
    child,
    // The owner's token, as the sign-in link carries it (issue 29).
    token,
    signInUrl: `${url}/?token=${token}`,
    api: new Channel(url, token),
    async stop() {
      await stopChild(child);
      if (!shared) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * The product's mock as an HTTP model with a scenario (`rules`, the JSON
 * list the README describes). Answers `{baseUrl, stop()}`.
 */
async function startMockModel(rules) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flybot-e2e-mock-'));
  const file = path.join(dir, 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(rules));
  const { child, match } = await spawnUntil(
    ['mock-model', 'serve', '--scenario', file, '--listen', '127.0.0.1:0'],
    /base URL is (http:\/\/\S+)/,
  );
  return {
    baseUrl: match[1],
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP proxy in front of `url` that can cut the line: `cut()` drops every
 * open connection (the page's live stream among them) and holds new ones
 * until `resume()`, as a network that goes away and comes back does. The
 * browser's offline switch cannot do this: it leaves an open stream alone.
 * Answers `{url, cut(), resume(), stop()}`.
 */
async function startCutProxy(url) {
  const target = new URL(url);
  const sockets = new Set();
  let held = [];
  let cutting = false;
  const pipe = (client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
    client.resume();
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    if (cutting) held.push(client);
    else pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    cut() {
      cutting = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    resume() {
      cutting = false;
      const waiting = held;
      held = [];
      waiting.forEach(pipe);
    },
    async stop() {
      for (const socket of [...sockets, ...held]) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ---- The scripted model: an OpenAI-compatible server the test drives ----

/** The text of the last message of `role` in a chat-completions request. */
function lastOf(request, role) {
  const messages = (request.messages || []).filter((m) => m.role === role);
  const last = messages[messages.length - 1];
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content || []).map((part) => part.text || '').join('');
}

/** Every message's text, to tell which Bot (by its instructions) is asking. */
function allText(request) {
  return (request.messages || [])
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content || '')))
    .join('\n');
}

/** The Bot a request is for: its system prompt opens "## You are <Name>". */
function botOf(request) {
  const match = lastOf(request, 'system').match(/## You are (\S+)/);
  return match ? match[1] : null;
}

/** One streamed answer the test writes: `send(text)` each piece, `end()`. */
class HeldAnswer {
  constructor(request, response, id) {
    this.request = request;
    this.response = response;
    this.id = id;
    this.sent = [];
    this.closed = new Promise((resolve) => response.once('close', resolve));
    this.ended = false;
  }

  chunk(delta, finish = null) {
    const body = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: 0,
      model: this.request.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
    return `data: ${JSON.stringify(body)}\n\n`;
  }

  /** Writes one text delta; answers the time it left (performance clock, ms). */
  send(text) {
    if (this.ended) throw new Error('The answer has ended.');
    this.response.write(this.chunk({ content: text }));
    const at = performance.timeOrigin + performance.now();
    this.sent.push({ text, at });
    return at;
  }

  /** Finishes the answer (finish_reason stop, usage, [DONE]). */
  end() {
    if (this.ended) return;
    this.ended = true;
    this.response.write(this.chunk({}, 'stop'));
    const usage = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: 0,
      model: this.request.model,
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    this.response.write(`data: ${JSON.stringify(usage)}\n\n`);
    this.response.end('data: [DONE]\n\n');
  }
}

/**
 * An OpenAI-compatible model server in this process. Rules are tried in
 * order: `rule(match, reply)` where `match(request)` is a predicate and
 * `reply` is `{text}` (sent at once in pieces of four characters) or
 * `'hold'` (the test writes it: `await model.held()`). With no rule matching
 * it answers one plain line, like the offline mock.
 */
class ScriptedModel {
  constructor() {
    this.rules = [];
    this.requests = [];
    this.calls = 0;
    this.heldQueue = [];
    this.heldWaiters = [];
  }

  rule(match, reply) {
    this.rules.push({ match, reply });
    return this;
  }

  /** The next held answer (already asked for, or the next one to come). */
  held() {
    if (this.heldQueue.length) return Promise.resolve(this.heldQueue.shift());
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  async start() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${this.server.address().port}/v1`;
    return this;
  }

  async stop() {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  handle(req, res) {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
      return;
    }
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        res.statusCode = 400;
        res.end('{"error":{"message":"not JSON"}}');
        return;
      }
      this.calls += 1;
      this.requests.push(request);
      const rule = this.rules.find((r) => r.match(request));
      const reply = rule ? rule.reply : { text: `(scripted) I received: ${lastOf(request, 'user')}` };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      const answer = new HeldAnswer(request, res, `chatcmpl-scripted-${this.calls}`);
      res.write(answer.chunk({ role: 'assistant', content: '' }));
      if (reply === 'hold') {
        const waiter = this.heldWaiters.shift();
        if (waiter) waiter(answer);
        else this.heldQueue.push(answer);
        return;
      }
      const text = typeof reply.text === 'function' ? reply.text(request) : reply.text;
      const size = reply.deltaChars || 4;
      for (let i = 0; i < text.length; i += size) answer.send(text.slice(i, i + size));
      answer.end();
    });
  }
}

async function startScriptedModel() {
  return new ScriptedModel().start();
}

module.exports = {
  Channel,
  startHost,
  startMockModel,
  startScriptedModel,
  startCutProxy,
  stopChild,
  lastOf,
  allText,
  botOf,
  REPO,
};
