/**
 * Every command's module, in the order `--help` lists them, loaded only when
 * needed (`loadCommands`): a command line that names one command loads that
 * module alone, so `ferry ls` never parses the archive's, the exporter's or
 * the picker's code (the bundle keeps each in a chunk of its own,
 * scripts/bundle.mjs).
 */
export const COMMANDS = {
  ls: () => import('./commands/ls.js'),
  cat: () => import('./commands/cat.js'),
  write: () => import('./commands/write.js'),
  convert: () => import('./commands/convert.js'),
  quickstart: () => import('./commands/quickstart.js'),
  archive: () => import('./commands/archive.js'),
  hooks: () => import('./commands/hooks.js'),
  search: () => import('./commands/search.js'),
  export: () => import('./commands/export.js'),
  continue: () => import('./commands/continue.js'),
  show: () => import('./commands/show.js'),
  render: () => import('./commands/render.js'),
  stats: () => import('./commands/stats.js'),
  mcp: () => import('./commands/mcp.js'),
  pick: () => import('./commands/pick.js'),
  doctor: () => import('./commands/doctor.js'),
} as const
export type CommandWord = keyof typeof COMMANDS
