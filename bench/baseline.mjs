// The baseline loop every workload is compared with: split2 + JSON.parse +
// JSON.stringify over the same file, written to stdout (sent to /dev/null).
// `baseline.mjs FILE`, or `baseline.mjs --list LIST` for every file named in
// LIST (one path a line), one after the other: the many-sessions workloads.
import { createReadStream, readFileSync } from 'node:fs'
import split2 from 'split2'

const out = process.stdout

function loop(file) {
  return new Promise((resolve, reject) => {
    const src = createReadStream(file).pipe(split2())
    src.on('data', (line) => {
      if (!line) return
      let v
      try {
        v = JSON.parse(line)
      } catch {
        return
      }
      if (!out.write(JSON.stringify(v) + '\n')) {
        src.pause()
        out.once('drain', () => src.resume())
      }
    })
    src.on('end', resolve)
    src.on('error', reject)
  })
}

const files = process.argv[2] === '--list' ? readFileSync(process.argv[3], 'utf8').split('\n').filter(Boolean) : [process.argv[2]]
for (const f of files) await loop(f)
out.end()
