/**
 * Shell completion: `ferry completion bash|zsh|fish` prints a script that
 * asks `ferry __complete -- WORDS…` (the words typed so far, the last one
 * being completed) for candidates. The candidates come from the same yargs
 * definitions the parser uses (commands, their flags, flag choices), the
 * registry (harness ids after --to/--from/--harness/--with) and discovery
 * (session ids as `harness:id` where a command takes a REF; `--home` typed
 * on the line is honoured). An empty answer lets the shell complete file names.
 */
import yargs, { type Argv, type CommandModule } from 'yargs'
import { listableEntries, manifest, readableEntries, writableEntries } from '../harness/manifest.js'
import { contextFrom, globalValueFlags, storeOptions, type Args } from './options.js'
import { commandIndex } from './argv.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Module = CommandModule<any, any>

const SHELLS = ['bash', 'zsh', 'fish'] as const

/** Where a command takes session references, these are its positional names. */
const REF_POSITIONALS = new Set(['ref'])

export function completionScript(shell: (typeof SHELLS)[number]): string {
  switch (shell) {
    case 'bash':
      return `# ferry completion for bash: source this file, or put it in ~/.local/share/bash-completion/completions/ferry
_ferry_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" cur i
  local -a words
  read -r -a words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  cur="\${words[\${#words[@]}-1]}"
  local IFS=$'\\n'
  COMPREPLY=( $(ferry ${COMPLETE_HOOK} -- "\${words[@]:1}" 2>/dev/null) )
  # bash replaces only what follows the last ':' of the word (COMP_WORDBREAKS): drop what is already typed.
  if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    local pre="\${cur%"\${cur##*:}"}"
    for i in "\${!COMPREPLY[@]}"; do COMPREPLY[$i]="\${COMPREPLY[$i]#"$pre"}"; done
  fi
}
complete -o default -F _ferry_complete ferry
`
    case 'zsh':
      return `#compdef ferry
# ferry completion for zsh: put this file as _ferry on $fpath, or source it after compinit
_ferry() {
  local -a cands
  cands=("\${(@f)$(ferry ${COMPLETE_HOOK} -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${cands[1]}" ]]; then compadd -Q -- "\${cands[@]}"; else _files; fi
}
compdef _ferry ferry
`
    case 'fish':
      return `# ferry completion for fish: save as ~/.config/fish/completions/ferry.fish
function __ferry_complete
    set -l words (commandline -opc) (commandline -ct)
    ferry ${COMPLETE_HOOK} -- $words[2..-1]
end
complete -c ferry -f -a '(__ferry_complete)'
`
  }
}

interface OptionsInfo {
  flags: string[]
  booleans: Set<string>
  /** Booleans that default to true, offered as --no-X. */
  negatable: Set<string>
  choices: Record<string, string[]>
  positionals: string[]
}

/** What the parser knows of one command: its flags (with aliases), which take no value, their choices, its positionals. */
async function optionsOf(m: Module | undefined, name: string | undefined): Promise<OptionsInfo> {
  let info: OptionsInfo | undefined
  const capture = (y: Argv) => {
    const yi = y as unknown as { getOptions(): unknown; getGroups(): Record<string, string[]> }
    const o = yi.getOptions() as { key: Record<string, unknown>; boolean: string[]; choices: Record<string, string[]>; hiddenOptions: string[]; alias: Record<string, string[]>; default: Record<string, unknown> }
    const positional = yi.getGroups()['Positionals:'] ?? []
    info = {
      flags: Object.keys(o.key).filter((k) => !o.hiddenOptions.includes(k) && !positional.includes(k) && k !== '$0'),
      booleans: new Set(o.boolean),
      negatable: new Set(o.boolean.filter((b) => o.default[b] === true)),
      choices: o.choices,
      positionals: positional,
    }
  }
  let y = storeOptions(yargs(name ? [name] : []).exitProcess(false).version(false).help(false).fail(() => {}))
  if (!m || !name) {
    capture(y)
    return info!
  }
  const mod = m
  y = y.command({
    ...mod,
    builder: async (yy: Argv) => {
      const b = mod.builder
      const r = typeof b === 'function' ? ((await b(yy)) as Argv | undefined) ?? yy : b ? yy.options(b) : yy
      capture(r)
      return r
    },
    handler: () => {},
  } as CommandModule)
  await Promise.resolve(y.parseAsync()).catch(() => {})
  return info ?? { flags: [], booleans: new Set(), negatable: new Set(), choices: {}, positionals: [] }
}

/** Session keys for REF positions, from discovery in the HOME the line names. */
async function sessionKeys(words: string[], cur: string): Promise<string[]> {
  const argv: Args = {}
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!
    const eq = w.indexOf('=')
    const key = w.startsWith('--') ? (eq > 0 ? w.slice(2, eq) : w.slice(2)) : ''
    if (key === 'home' || manifest.some((h) => h.store.flag?.name === key)) argv[key] = eq > 0 ? w.slice(eq + 1) : words[i + 1]
  }
  const ctx = contextFrom(argv)
  const out: string[] = []
  const colon = cur.indexOf(':')
  const only = colon > 0 ? cur.slice(0, colon) : undefined
  for (const e of listableEntries()) {
    if (!e.reads || (only && e.id !== only)) continue
    try {
      const h = await e.load()
      for await (const s of h.discover!(ctx, {})) if (s.sid.startsWith(cur) || s.id.startsWith(cur)) out.push(s.sid)
    } catch {
      // A store that cannot be listed offers nothing; completion never fails.
    }
  }
  return out
}

const HARNESS_VALUES: Record<string, () => string[]> = {
  to: () => writableEntries().map((h) => h.id),
  with: () => writableEntries().filter((h) => h.kind === 'store').map((h) => h.id),
  from: () => readableEntries().map((h) => h.id),
  harness: () => listableEntries().map((h) => h.id),
}

/** The candidates for the last of `words` (the words after `ferry`). */
export async function complete(words: string[], modules: Module[]): Promise<string[]> {
  const cur = words[words.length - 1] ?? ''
  const before = words.slice(0, -1)
  const visible = modules.filter((m) => m.describe !== false)
  const names = visible.map((m) => String(m.command).split(' ')[0]!)
  const at = commandIndex(before, globalValueFlags())
  const name = at === -1 ? undefined : before[at]
  const mod = name ? visible[names.indexOf(name)] : undefined
  if (name && !mod) return []
  const info = await optionsOf(mod, name)
  const prev = before[before.length - 1]
  if (prev?.startsWith('--') && !prev.includes('=')) {
    const key = prev.slice(2)
    if (info.flags.includes(key) && !info.booleans.has(key)) {
      const values = info.choices[key] ?? HARNESS_VALUES[key]?.() ?? []
      return values.filter((v) => v.startsWith(cur))
    }
  }
  if (cur.startsWith('-')) {
    const flags = [...info.flags.filter((f) => f.length > 1).map((f) => `--${f}`), ...[...info.negatable].filter((b) => info.flags.includes(b) && b.length > 1).map((b) => `--no-${b}`)]
    return [...new Set([...flags, '--help'])].filter((f) => f.startsWith(cur)).sort()
  }
  if (!mod) return names.filter((n) => n.startsWith(cur))
  // The first positional of `completion` is the shell; REF positionals are sessions.
  const pos = info.positionals[0]
  if (pos && info.choices[pos]) return info.choices[pos]!.filter((c) => c.startsWith(cur))
  if (pos && REF_POSITIONALS.has(pos)) return sessionKeys(words, cur)
  return []
}

export function completionCommands(modules: () => Module[]): Module[] {
  return [
    {
      command: 'completion <shell>',
      describe: 'Print a shell completion script (commands, flags, harness ids, session ids)',
      builder: (y: Argv) =>
        y
          .positional('shell', { type: 'string', choices: [...SHELLS], describe: 'Which shell' })
          .option('bind', { type: 'boolean', default: false, describe: 'Also bind Ctrl-G: pick a session (ferry pick) and insert its REF on the command line' })
          .example('source <(ferry completion bash)', 'complete ferry in this bash')
          .example('source <(ferry completion bash --bind)', 'the same, and Ctrl-G inserts a picked session\'s REF')
          .example('ferry completion zsh > ~/.zfunc/_ferry', 'zsh, from a directory on $fpath')
          .example('ferry completion fish > ~/.config/fish/completions/ferry.fish', 'fish'),
      handler: (argv: Args) => {
        const shell = argv.shell as (typeof SHELLS)[number]
        process.stdout.write(completionScript(shell) + (argv.bind ? `\n${pickKeyScript(shell)}` : ''))
      },
    },
  ]
}

/** `--bind`: Ctrl-G runs `ferry pick --print` and inserts the REF picked at the cursor (nothing on Escape). */
export function pickKeyScript(shell: (typeof SHELLS)[number]): string {
  switch (shell) {
    case 'bash':
      return `# Ctrl-G: pick a session (ferry pick) and insert its REF at the cursor.
_ferry_pick_ref() {
  local ref
  ref="$(ferry pick --print)" && [[ -n "$ref" ]] || return 0
  READLINE_LINE="\${READLINE_LINE:0:READLINE_POINT}\${ref}\${READLINE_LINE:READLINE_POINT}"
  READLINE_POINT=$((READLINE_POINT + \${#ref}))
}
bind -x '"\\C-g": _ferry_pick_ref'
`
    case 'zsh':
      return `# Ctrl-G: pick a session (ferry pick) and insert its REF at the cursor.
_ferry_pick_ref() {
  local ref
  ref="$(ferry pick --print </dev/tty)" && LBUFFER+="$ref"
  zle reset-prompt
}
zle -N _ferry_pick_ref
bindkey '^G' _ferry_pick_ref
`
    case 'fish':
      return `# Ctrl-G: pick a session (ferry pick) and insert its REF at the cursor.
function __ferry_pick_ref
    set -l ref (ferry pick --print)
    and commandline -i -- $ref
    commandline -f repaint
end
bind \\cg __ferry_pick_ref
`
  }
}

/** The hidden word the completion scripts call ferry with. */
export const COMPLETE_HOOK = '__complete'

export async function printCompletions(words: string[], modules: Module[]): Promise<void> {
  const out = await complete(words.length ? words : [''], modules)
  if (out.length) process.stdout.write(out.join('\n') + '\n')
}
