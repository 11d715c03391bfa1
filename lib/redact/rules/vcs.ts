/** Source hosts and package registries: token formats as each provider documents them (prefix, alphabet, length). */
import { p, type Rule } from '../rule.js'

export const VCS: Rule[] = [
  p('github-token', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], String.raw`{L}(?<s>gh[pousr]_[A-Za-z0-9]{36,251}){R}`),
  p('github-token', ['github_pat_'], String.raw`{L}(?<s>github_pat_[A-Za-z0-9_]{82}){R}`),
  p('gitlab-token', ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'glsoat-', 'glft-', 'GR1348941'], String.raw`{L}(?<s>(?:glpat|glptt|gldt|glrt|glcbt|glsoat|glft)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20})`),
  p('bitbucket-token', ['ATBB'], String.raw`{L}(?<s>ATBB[A-Za-z0-9_=.\-]{32,}){R}`),
  p('atlassian-token', ['ATATT3'], String.raw`{L}(?<s>ATATT3[A-Za-z0-9_\-=]{150,})`),
  p('npm-token', ['npm_'], String.raw`{L}(?<s>npm_[A-Za-z0-9]{36}){R}`),
  p('pypi-token', ['pypi-AgEIcHlwaS5vcmc'], String.raw`(?<s>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,})`),
  p('rubygems-token', ['rubygems_'], String.raw`{L}(?<s>rubygems_[a-f0-9]{48}){R}`),
  p('docker-token', ['dckr_pat_'], String.raw`{L}(?<s>dckr_pat_[A-Za-z0-9_\-]{27,}){R}`),
]
