// Reads the per-request logs of the `toolwire serve` processes (OUT/<server>.log) and the
// exchanges the scripts expected (OUT/*.expect.json): every SDK request must have been
// matched to its exchange, answered with the expected status, and pass the client checks
// CLI-01..CLI-10 whose severity is error or warn. Failed info checks are reported only.
// Usage: node check-log.mjs OUT SCRIPT… (in the order the scripts ran)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Severities of docs/checks.md.
const SEVERITY = {
  'CLI-01': 'error', 'CLI-02': 'error', 'CLI-03': 'error', 'CLI-04': 'error', 'CLI-05': 'error',
  'CLI-06': 'info', 'CLI-07': 'warn', 'CLI-08': 'error', 'CLI-09': 'warn', 'CLI-10': 'error',
};

const [out, ...scripts] = process.argv.slice(2);
// (a 404 line goes on with ": WHY", and with --log-bodies " body: BODY")
// (failed info checks come apart: " client advice (info): IDS")
const LINE = /^#(\d+) (\S+) -> (.+?)(?:#(\d+))? (\d+)( fault)?(?: client checks failed: (\S+?))?(?: client advice \(info\): (\S+?))?(?:: .*)?(?: body: .*)?$/;

const logs = {};
for (const f of readdirSync(out).filter((f) => f.endsWith('.log'))) {
  logs[f.slice(0, -4)] = readFileSync(join(out, f), 'utf8').split('\n')
    .map((l) => l.match(LINE)).filter(Boolean)
    .map((m) => ({ seq: +m[1], path: m[2], exchange: m[4] === undefined ? m[3] : `${m[3]}#${m[4]}`,
      status: +m[5], failed: [...(m[7] ? m[7].split(',') : []), ...(m[8] ? m[8].split(',') : [])] }));
}

let failures = 0;
const info = new Map();
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };

// The scripts ran one after the other, in the order given, each request after the previous
// one answered: each server's log holds their requests in that order.
const next = {};
let expected = 0;
for (const script of scripts) {
  let list = [];
  try {
    list = JSON.parse(readFileSync(join(out, `${script}.expect.json`), 'utf8'));
  } catch (e) {
    fail(`${script}: no list of expected requests (${e.message})`);
  }
  for (const e of list) {
    expected++;
    const log = logs[e.server] ?? [];
    const from = next[e.server] ?? 0;
    const i = log.findIndex((r, k) => k >= from && r.exchange === e.exchange);
    if (i < 0) { fail(`${script}: no request for ${e.exchange} in the ${e.server} log`); continue; }
    for (let k = from; k < i; k++)
      fail(`${script}: unexpected ${e.server} request #${log[k].seq} ${log[k].path} -> ${log[k].exchange} (status ${log[k].status})`);
    next[e.server] = i + 1;
    const r = log[i];
    if (r.status !== e.status) fail(`${script}: ${e.exchange}: status ${r.status}, want ${e.status}`);
    for (const id of r.failed) {
      const sev = SEVERITY[id] ?? 'error';
      if (sev === 'info') info.set(`${id} (${script})`, (info.get(`${id} (${script})`) ?? 0) + 1);
      else fail(`${script}: ${e.exchange}: the SDK's request failed client check ${id} (${sev})`);
    }
  }
}
const total = Object.values(logs).reduce((n, l) => n + l.length, 0);
if (total !== expected) fail(`the servers logged ${total} request(s), the scripts made ${expected}`);
for (const [id, n] of info) console.log(`info: ${id} failed on ${n} request(s) (info checks do not fail the test)`);
console.log(`client checks: ${total} request(s) judged, ${failures ? `${failures} problem(s)` : 'no error or warn check failed'}`);
process.exitCode = failures ? 1 : 0;
