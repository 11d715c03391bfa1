/**
 * The terminal the picker draws on: stdin and stdout when both are one,
 * else /dev/tty (as fzf does), so `ferry show "$(ferry pick --print)"` draws
 * on the screen while its stdout goes to the command substitution.
 */
import { openSync } from 'node:fs'
import tty from 'node:tty'
import { UsageError } from '../errors.js'

export interface Terminal {
  input: tty.ReadStream
  output: tty.WriteStream
  close(): void
}

export function openTerminal(): Terminal {
  if (process.stdin.isTTY && process.stdout.isTTY) return { input: process.stdin, output: process.stdout, close: () => {} }
  let fd: number
  try {
    fd = openSync('/dev/tty', 'r+')
  } catch {
    throw new UsageError('ferry pick needs a terminal (no /dev/tty here); list sessions with `ferry ls` instead')
  }
  const input = new tty.ReadStream(fd)
  const output = new tty.WriteStream(fd)
  // Node follows window size changes for process.stdout only (its SIGWINCH handler calls `_refreshSize`, which asks
  // the terminal and emits 'resize'; `getWindowSize()` only returns the remembered size): this stream is told here.
  const resize = () => (output as unknown as { _refreshSize?: () => void })._refreshSize?.()
  process.on('SIGWINCH', resize)
  return {
    input,
    output,
    close: () => {
      process.off('SIGWINCH', resize)
      // The two streams share the descriptor: destroying the input closes it.
      input.destroy()
    },
  }
}
