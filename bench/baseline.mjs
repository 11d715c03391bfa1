// The baseline loop every workload is compared with: split2 + JSON.parse +
// JSON.stringify over the same file, written to stdout (sent to /dev/null).
import { createReadStream } from 'node:fs'
import split2 from 'split2'

const file = process.argv[2]
const out = process.stdout
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
src.on('end', () => out.end())
