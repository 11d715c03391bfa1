import t from 'tap'
import { blake3 } from '@noble/hashes/blake3.js'
import { decodeGroupName, encodeCwdDirname, insideSession, sessionDirPath, slugify, urlEncode, uuidFor } from '../../../lib/harness/grok/paths.js'

t.test('cwd → group name is Grok\'s per-byte percent encoding (RFC 3986 unreserved kept)', async (t) => {
  t.equal(encodeCwdDirname('/home/dev/demo-app').name, '%2Fhome%2Fdev%2Fdemo-app')
  // encodeURIComponent would leave ! * ' ( ) alone; Grok's urlencoding escapes them.
  t.equal(urlEncode("/a b!*'()~_.-"), '%2Fa%20b%21%2A%27%28%29~_.-')
  t.equal(urlEncode('/é'), '%2F%C3%A9')
  t.equal(encodeCwdDirname('/home/dev/demo-app').hashed, false)
  t.equal(decodeGroupName('%2Fhome%2Fdev%2Fdemo-app'), '/home/dev/demo-app')
  t.equal(decodeGroupName('leaf-0123456789abcdef', '/the/real/cwd\n'), '/the/real/cwd')
  t.equal(decodeGroupName('leaf-0123456789abcdef', null), undefined)
})

t.test('over-long encodings become <slug>-<blake3 hex16> (Grok paths.rs)', async (t) => {
  const long = '/srv/' + 'very-long-directory-name/'.repeat(12) + 'Leaf Dir!'
  const { name, hashed } = encodeCwdDirname(long)
  const hex = Buffer.from(blake3(Buffer.from(long))).toString('hex').slice(0, 16)
  t.equal(hashed, true)
  t.equal(name, `leaf-dir-${hex}`)
  // Grok's own test: 30 CJK characters overflow 255 bytes once encoded.
  const cjk = encodeCwdDirname(`/Users/test/${'中'.repeat(30)}`)
  t.equal(cjk.hashed, true)
  t.ok(Buffer.byteLength(cjk.name) <= 255 && !cjk.name.startsWith('%2F'))
  t.match(cjk.name, /^workspace-[0-9a-f]{16}$/, 'a leaf with no ASCII alphanumerics slugs to workspace')
  t.not(encodeCwdDirname(long + 'x').name, name, 'different cwds, different hashes')
  // exactly 255 encoded bytes stays readable
  const edge = '/' + 'a'.repeat(252)
  t.equal(urlEncode(edge).length, 255)
  t.equal(encodeCwdDirname(edge).hashed, false)
  t.equal(slugify('--Hello__World--'), 'hello-world')
  t.equal(slugify('x'.repeat(50)).length, 40)
})

t.test('paths are always <root>/sessions/<group>/<id>', async (t) => {
  t.equal(sessionDirPath('/r', '%2Fa', 'b'), '/r/sessions/%2Fa/b')
  for (const [g, id] of [['%2Fa', '../../x'], ['..', 'b'], ['%2Fa', '..'], ['a/b', 'c'], ['%2Fa', 'x\0y'], ['%2Fa', ''], ['.', 'b']]) {
    t.throws(() => sessionDirPath('/r', g!, id!), { code: 'unsafe-path', name: 'UnsafePathError' }, `${JSON.stringify(g)}/${JSON.stringify(id)}`)
  }
  t.throws(() => insideSession('/r/s', '../summary.json'), { code: 'unsafe-path', name: 'UnsafePathError' })
  t.throws(() => insideSession('/r/s', '/etc/passwd'), { code: 'unsafe-path', name: 'UnsafePathError' })
  t.equal(insideSession('/r/s', 'assets/image-1.png'), '/r/s/assets/image-1.png')
})

t.test('derived session ids are deterministic UUIDs', async (t) => {
  t.match(uuidFor('claude-code:abc'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.equal(uuidFor('claude-code:abc'), uuidFor('claude-code:abc'))
  t.not(uuidFor('claude-code:abc'), uuidFor('claude-code:abd'))
  // The ids the hand-written v5 minted before it became the uuid package: sessions ferry wrote keep their names.
  t.equal(uuidFor('claude-code:abc'), 'cd66b502-3670-5c50-97fb-2047959655d4')
  t.equal(uuidFor('grok:../../x'), '7afe4e9e-9763-5299-913d-b7054d61bee2')
})
