import t from 'tap'
import { cwdMatcher, parseTime } from '../../lib/select.js'

const NOW = Date.parse('2026-12-01T12:00:00Z')

t.test('parseTime: ISO dates and times, spans back from now', async (t) => {
  t.equal(parseTime('7d', NOW), NOW - 7 * 86400e3)
  t.equal(parseTime('12h', NOW), NOW - 12 * 3600e3)
  t.equal(parseTime('30m', NOW), NOW - 30 * 60e3)
  t.equal(parseTime('2w', NOW), NOW - 14 * 86400e3)
  t.equal(parseTime('2026-11-29', NOW), Date.parse('2026-11-29'))
  t.equal(parseTime('2026-11-29T10:00:00Z', NOW), Date.parse('2026-11-29T10:00:00Z'))
  t.equal(parseTime('2026-11-29 10:00', NOW), Date.parse('2026-11-29 10:00'))
  t.throws(() => parseTime('bogus', NOW, 'until'), { code: 'usage', message: /^--until: / })
  t.throws(() => parseTime('7 days ago', NOW), { code: 'usage', message: /^--since: / })
  t.throws(() => parseTime('2026-13-45', NOW), { code: 'usage' })
})

t.test('cwdMatcher: a path is that directory or below, a glob is a glob', async (t) => {
  const dir = cwdMatcher('/home/dev/app')
  t.ok(dir('/home/dev/app'))
  t.ok(dir('/home/dev/app/sub/x'))
  t.notOk(dir('/home/dev/app2'), 'a sibling with the same prefix is not below')
  t.notOk(dir('/home/dev'))
  t.notOk(dir(undefined))
  t.ok(cwdMatcher('app', '/home/dev')('/home/dev/app/x'), 'relative to the base')
  t.ok(cwdMatcher('/home/dev/app/')('/home/dev/app'), 'trailing slash')
  t.ok(cwdMatcher('/')('/anything'), 'root')
  const glob = cwdMatcher('/srv/**/app')
  t.ok(glob('/srv/app'))
  t.ok(glob('/srv/a/b/app'))
  t.notOk(glob('/srv/a/app/sub'), 'a glob matches the whole path')
  t.ok(cwdMatcher('/home/*/demo-app')('/home/dev/demo-app'))
  t.notOk(cwdMatcher('/home/*/demo-app')('/home/a/b/demo-app'), '* stays within a segment')
  t.ok(cwdMatcher('/srv/{api,web}')('/srv/web'), '{a,b}')
  t.ok(cwdMatcher('/srv/app[0-9]')('/srv/app7'), '[…]')
  t.notOk(cwdMatcher('/srv/app[0-9]')('/srv/appx'))
})
