/**
 * A session written into another agent is listed there under its own title, not under the first user
 * text: from Cursor and Codex that text is injected context (`<user_info>`, `<environment_context>`),
 * which Gemini CLI and Qwen Code took as the title until their writers carried the source's title
 * (Gemini's `summary`, Qwen's `custom_title` record). Every store target that needs no client-made
 * database, through the CLI as a user would: `cat | write`, then `ls --json` of the target home.
 */
import t from 'tap'
import { join } from 'node:path'
import { FIXTURES, ferry, jsonl, tempDir } from '../kit.js'

const FIXTURE_HOME = join(FIXTURES, 'home')

const SOURCES = ['cursor:c7a4e2f0', 'codex:019a3c1e']
const TARGETS = ['claude-code', 'codex', 'grok', 'cursor', 'copilot', 'pi', 'gemini', 'qwen']

t.test('the source title is the listed title in every target', async (t) => {
  const all = jsonl((await ferry(['--home', FIXTURE_HOME, 'ls', '--all', '--json'])).stdout)
  for (const ref of SOURCES) {
    const title = all.find((s) => String(s.sid).startsWith(ref))?.title as string
    t.ok(title && !title.startsWith('<'), `${ref} has a typed title: ${title}`)
    const stream = (await ferry(['--home', FIXTURE_HOME, 'cat', ref])).stdout
    for (const to of TARGETS) {
      const home = tempDir(t)
      const w = await ferry(['--home', home, 'write', '--to', to], { input: stream, env: { PATH: '/nonexistent' } })
      t.equal(w.code, 0, `${ref} → ${to}: ${w.stderr.slice(0, 300)}`)
      const listed = jsonl((await ferry(['--home', home, 'ls', '--json', '--harness', to])).stdout)
      t.equal(listed[0]?.title, title, `${ref} → ${to}: listed as "${title}"`)
    }
  }
})
