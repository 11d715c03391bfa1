/**
 * Transform flags come from the option schemas: typed and checked (a bad
 * number or choice is a usage error, exit 2, before any input is read),
 * `--style` choices from the harness registry, and the flag forms of
 * cat/convert (`--truncate '--tool-output 10'`) applied in order.
 */
import t from 'tap'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl } from '../kit.js'

const HOME = join(FIXTURES, 'home')

t.test('transform flags are typed from the schema', async (t) => {
  for (const args of [
    ['truncate', '--tool-output', 'abc'],
    ['truncate', '--images', 'bogus'],
    ['filter', '--min-messages', 'x'],
    ['filter', '--blocks', 'text,bogus'],
    ['normalize-tools', '--style', 'nobody'],
    ['--home', HOME, 'cat', 'codex:019a3c1e', '--truncate', '--tool-output abc'],
  ]) {
    const r = await ferry(args, { input: '' })
    t.equal(r.code, 2, `${args.join(' ')}: usage error\n${r.stderr}`)
    t.equal(r.stdout, '')
  }
  const style = await ferry(['normalize-tools', '--help'])
  t.match(style.stdout, /choices: .*"claude-code".*"codex"/, '--style choices come from the registry')
  const spaced = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--redact', '--truncate', '--tool-output 10'])
  t.equal(spaced.code, 0, spaced.stderr)
  t.ok(jsonl(spaced.stdout).some((r) => r.kind === 'message' && r.blocks.some((b: any) => b.type === 'tool_result' && b.truncated)), "--truncate '--tool-output 10' applied")
})
