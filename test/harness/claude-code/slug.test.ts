import t from 'tap'
import { projectSlug, stringHash } from '../../../lib/harness/claude-code/slug.js'

t.test('every non-alphanumeric UTF-16 unit becomes "-" (checked against Claude Code 2.1.332)', async (t) => {
  t.equal(projectSlug('/home/dev/demo-app'), '-home-dev-demo-app')
  t.equal(projectSlug('/tmp/wk/my.app_dir v2'), '-tmp-wk-my-app-dir-v2')
  // é is one unit, the emoji a surrogate pair: two dashes (seen on disk from the real client).
  t.equal(projectSlug('/tmp/slugt/café_😀x v2.0'), '-tmp-slugt-caf----x-v2-0')
  t.equal(projectSlug('C:\\Users\\x'), 'C--Users-x')
})

t.test('long paths are cut at 200 units and suffixed with the base-36 |hash|', async (t) => {
  // The exact directory the real client created for this 248-character cwd.
  const cwd = `/tmp/slugt/${'very_long.dir name '.repeat(12)}/café_😀x`
  t.equal(projectSlug(cwd), '-tmp-slugt-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-very-long-dir-name-orikvb')
  const exact = '/' + 'a'.repeat(199)
  t.equal(projectSlug(exact), '-' + 'a'.repeat(199), '200 units stay whole')
  t.equal(projectSlug(exact + 'b').length, 201 + Math.abs(stringHash(exact + 'b')).toString(36).length)
  t.equal(stringHash('a'), 97)
  t.equal(stringHash('ab'), 97 * 31 + 98)
})
