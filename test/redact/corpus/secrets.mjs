/**
 * Secret kinds of the evaluation corpus, written from each provider's
 * documented token format (prefix, alphabet, length), filled with random
 * characters from the seeded PRNG: none of them is a real credential.
 *
 * Classes:
 * - `token`: recognisable by itself (a documented prefix or shape); planted
 *   under neutral or secret-ish names and in prose.
 * - `named`: recognisable only by the variable or field holding it; `names`
 *   lists the names its provider documents (UPPER_SNAKE, rendered in the
 *   context's own case).
 * - `url`: a credential inside a URL (userinfo or query); `secret` is the part
 *   that must go.
 * - `config`: a whole config file (kubeconfig, Docker config.json, .netrc…)
 *   whose structure says where the credential is.
 */
import { AN, B32, B64, B64U, BECH32, DIG, HEX, LO, UP, b64, jwt, password, pem, uuid } from './rng.mjs'

const t = (make) => ({ cls: 'token', make })
const n = (names, make) => ({ cls: 'named', names, make })
const u = (make) => ({ cls: 'url', make })
const c = (make) => ({ cls: 'config', make })

const host = (r) => r.pick(['db.internal', 'pg-prod-1.acme.local', '10.0.3.17', 'cluster0.a1b2c.mongodb.net', 'cache.svc.cluster.local', 'mq.acme.io'])
const user = (r) => r.pick(['app', 'admin', 'deploy', 'svc_orders', 'postgres', 'root', 'ci-bot'])

export const SECRETS = {
  // Cloud
  aws_access_key_id: t((r) => 'AKIA' + r.str(B32, 16)),
  aws_temp_access_key_id: t((r) => 'ASIA' + r.str(B32, 16)),
  aws_secret_access_key: n(['AWS_SECRET_ACCESS_KEY', 'aws_secret_access_key', 'SecretAccessKey', 'secret_access_key'], (r) => r.str(B64, 40)),
  aws_session_token: n(['AWS_SESSION_TOKEN', 'aws_session_token', 'SessionToken'], (r) => r.pick(['IQoJb3JpZ2luX2Vj', 'FwoGZXIvYXdzE', 'AQoDYXdzE']) + r.str(B64, r.int(200, 600)) + r.pick(['', '=', '=='])),
  gcp_api_key: t((r) => 'AIza' + r.str(B64U, 35)),
  gcp_oauth_client_secret: t((r) => 'GOCSPX-' + r.str(B64U, 28)),
  gcp_access_token: t((r) => 'ya29.' + r.str(B64U, r.int(100, 200))),
  azure_storage_key: t((r) => { const k = r.str(B64, 86) + '=='; return { value: `DefaultEndpointsProtocol=https;AccountName=acme${r.str(LO, 4)};AccountKey=${k};EndpointSuffix=core.windows.net`, secret: k } }),
  azure_ad_client_secret: t((r) => r.str(AN, 3) + r.str(DIG, 1) + 'Q~' + r.str(AN + '_~.-', 34)),
  alibaba_access_key: t((r) => 'LTAI' + r.str(AN, 20)),
  digitalocean_pat: t((r) => 'dop_v1_' + r.str(HEX, 64)),
  databricks_pat: t((r) => 'dapi' + r.str(HEX, 32)),
  heroku_api_key: n(['HEROKU_API_KEY', 'heroku_api_key'], (r) => uuid(r)),
  hashicorp_vault_token: t((r) => 'hvs.' + r.str(B64U, 90)),
  terraform_cloud_token: t((r) => r.str(AN, 14) + '.atlasv1.' + r.str(AN, 67)),
  pulumi_token: t((r) => 'pul-' + r.str(HEX, 40)),
  doppler_token: t((r) => 'dp.pt.' + r.str(AN, 43)),
  supabase_pat: t((r) => 'sbp_' + r.str(HEX, 40)),
  supabase_service_role: t((r) => jwt(r, { iss: 'supabase', ref: r.str(LO, 20), role: 'service_role', iat: 1700000000 + r.int(0, 9e7), exp: 2000000000 + r.int(0, 9e7) })),
  flyio_token: t((r) => 'FlyV1 fm2_' + r.str(B64, 200)),
  cloudflare_api_token: n(['CLOUDFLARE_API_TOKEN', 'CF_API_TOKEN', 'cloudflare_api_token'], (r) => r.str(AN + '_-', 40)),
  cloudflare_global_key: n(['CLOUDFLARE_API_KEY', 'CF_API_KEY', 'X-Auth-Key'], (r) => r.str(HEX, 37)),
  // Source hosts and registries
  github_pat_classic: t((r) => 'ghp_' + r.str(AN, 36)),
  github_oauth: t((r) => 'gho_' + r.str(AN, 36)),
  github_app_installation: t((r) => 'ghs_' + r.str(AN, 36)),
  github_refresh: t((r) => 'ghr_' + r.str(AN, 76)),
  github_fine_grained: t((r) => 'github_pat_' + r.str(AN, 22) + '_' + r.str(AN, 59)),
  gitlab_pat: t((r) => 'glpat-' + r.str(AN + '_-', 20)),
  gitlab_runner: t((r) => 'glrt-' + r.str(AN + '_-', 20)),
  bitbucket_app_password: t((r) => 'ATBB' + r.str(AN, 32)),
  atlassian_api_token: t((r) => 'ATATT3xFfGF0' + r.str(B64U, 170) + '=' + r.str(HEX.toUpperCase(), 8)),
  npm_token: t((r) => 'npm_' + r.str(AN, 36)),
  pypi_token: t((r) => 'pypi-AgEIcHlwaS5vcmc' + r.str(B64U, r.int(60, 150))),
  rubygems_key: t((r) => 'rubygems_' + r.str(HEX, 48)),
  docker_hub_pat: t((r) => 'dckr_pat_' + r.str(B64U, 27)),
  // AI providers
  openai_project_key: t((r) => 'sk-proj-' + r.str(B64U, 74) + 'T3BlbkFJ' + r.str(B64U, 74)),
  openai_legacy_key: t((r) => 'sk-' + r.str(AN, 20) + 'T3BlbkFJ' + r.str(AN, 20)),
  openai_service_account: t((r) => 'sk-svcacct-' + r.str(B64U, 74) + 'T3BlbkFJ' + r.str(B64U, 74)),
  anthropic_api_key: t((r) => 'sk-ant-api03-' + r.str(B64U, 93) + 'AA'),
  anthropic_admin_key: t((r) => 'sk-ant-admin01-' + r.str(B64U, 93) + 'AA'),
  openrouter_key: t((r) => 'sk-or-v1-' + r.str(HEX, 64)),
  xai_key: t((r) => 'xai-' + r.str(AN, 80)),
  groq_key: t((r) => 'gsk_' + r.str(AN, 52)),
  huggingface_token: t((r) => 'hf_' + r.str(UP + LO, 34)),
  replicate_token: t((r) => 'r8_' + r.str(AN, 37)),
  perplexity_key: t((r) => 'pplx-' + r.str(AN, 48)),
  deepseek_key: t((r) => 'sk-' + r.str(HEX, 32)),
  // Payments and commerce
  stripe_secret_live: t((r) => 'sk_live_' + r.str(AN, r.pick([24, 99]))),
  stripe_secret_test: t((r) => 'sk_test_' + r.str(AN, r.pick([24, 99]))),
  stripe_restricted: t((r) => 'rk_live_' + r.str(AN, 99)),
  stripe_webhook_secret: t((r) => 'whsec_' + r.str(AN, 32)),
  square_access_token: t((r) => 'EAAA' + r.str(B64U, 60)),
  square_oauth_secret: t((r) => 'sq0csp-' + r.str(B64U, 43)),
  shopify_access_token: t((r) => 'shpat_' + r.str(HEX, 32)),
  braintree_token: t((r) => `access_token$production$${r.str(LO + DIG, 16)}$${r.str(HEX, 32)}`),
  // Chat, mail and bots
  slack_bot_token: t((r) => `xoxb-${r.str(DIG, 11)}-${r.str(DIG, 13)}-${r.str(AN, 24)}`),
  slack_user_token: t((r) => `xoxp-${r.str(DIG, 11)}-${r.str(DIG, 11)}-${r.str(DIG, 13)}-${r.str(HEX, 32)}`),
  slack_app_token: t((r) => `xapp-1-A${r.str(UP + DIG, 10)}-${r.str(DIG, 13)}-${r.str(HEX, 64)}`),
  slack_webhook: t((r) => `https://hooks.slack.com/services/T${r.str(UP + DIG, 10)}/B${r.str(UP + DIG, 10)}/${r.str(AN, 24)}`),
  discord_webhook: t((r) => `https://discord.com/api/webhooks/${r.str(DIG, 19)}/${r.str(B64U, 68)}`),
  discord_bot_token: t((r) => `${b64(String(r.int(1, 9)) + r.str(DIG, 18)).replace(/=+$/, '')}.${r.str(B64U, 6)}.${r.str(B64U, 38)}`),
  telegram_bot_token: t((r) => `${r.str(DIG, 10)}:AA${r.str(B64U, 33)}`),
  sendgrid_key: t((r) => 'SG.' + r.str(B64U, 22) + '.' + r.str(B64U, 43)),
  mailgun_key: t((r) => 'key-' + r.str(HEX, 32)),
  mailchimp_key: t((r) => r.str(HEX, 32) + '-us' + r.int(1, 21)),
  twilio_api_key_sid: t((r) => 'SK' + r.str(HEX, 32)),
  twilio_auth_token: n(['TWILIO_AUTH_TOKEN', 'twilio_auth_token', 'authToken'], (r) => r.str(HEX, 32)),
  postman_key: t((r) => `PMAK-${r.str(HEX, 24)}-${r.str(HEX, 34)}`),
  // Observability and SaaS
  datadog_api_key: n(['DD_API_KEY', 'DATADOG_API_KEY', 'DD-API-KEY'], (r) => r.str(HEX, 32)),
  datadog_app_key: n(['DD_APP_KEY', 'DD_APPLICATION_KEY', 'DATADOG_APP_KEY', 'DD-APPLICATION-KEY'], (r) => r.str(HEX, 40)),
  newrelic_user_key: t((r) => 'NRAK-' + r.str(UP + DIG, 27)),
  grafana_service_account: t((r) => 'glsa_' + r.str(AN, 32) + '_' + r.str(HEX, 8)),
  sentry_user_token: t((r) => 'sntryu_' + r.str(HEX, 64)),
  linear_key: t((r) => 'lin_api_' + r.str(AN, 40)),
  notion_token: t((r) => 'ntn_' + r.str(DIG, 11) + r.str(AN, 35)),
  airtable_pat: t((r) => 'pat' + r.str(AN, 14) + '.' + r.str(HEX, 64)),
  figma_pat: t((r) => 'figd_' + r.str(B64U, 40)),
  mapbox_secret_token: t((r) => 'sk.eyJ1Ijoi' + r.str(B64U, 60) + '.' + r.str(B64U, 22)),
  okta_api_token: n(['OKTA_API_TOKEN', 'okta_api_token', 'OKTA_CLIENT_TOKEN'], (r) => '00' + r.str(B64U, 40)),
  algolia_admin_key: n(['ALGOLIA_ADMIN_API_KEY', 'ALGOLIA_API_KEY', 'algoliaAdminKey'], (r) => r.str(HEX, 32)),
  age_secret_key: t((r) => 'AGE-SECRET-KEY-1' + r.str(BECH32.toUpperCase(), 58)),
  // Shapes
  jwt_access_token: t((r) => jwt(r, { sub: uuid(r), scope: 'read write', exp: 1800000000 + r.int(0, 9e7) })),
  bearer_opaque: { cls: 'bearer', make: (r) => r.str(AN + '_-.', r.int(24, 64)) },
  basic_auth_header: { cls: 'basic', make: (r) => b64(`${user(r)}:${password(r)}`) },
  private_key_rsa: t((r) => pem(r, 'RSA PRIVATE KEY', r.int(6, 24))),
  private_key_openssh: t((r) => pem(r, 'OPENSSH PRIVATE KEY', r.int(5, 12))),
  private_key_ec: t((r) => pem(r, 'EC PRIVATE KEY', r.int(2, 4))),
  private_key_pkcs8: t((r) => pem(r, 'PRIVATE KEY', r.int(8, 26))),
  // Generic names
  generic_password: n(['DB_PASSWORD', 'POSTGRES_PASSWORD', 'MYSQL_ROOT_PASSWORD', 'SMTP_PASSWORD', 'ADMIN_PASS', 'REDIS_PASSWORD', 'PGPASSWORD', 'KEYSTORE_PASSPHRASE', 'LDAP_BIND_PASSWORD', 'password'], (r) => password(r)),
  generic_secret: n(['JWT_SECRET', 'SESSION_SECRET', 'CLIENT_SECRET', 'APP_SECRET', 'WEBHOOK_SECRET', 'SECRET_KEY_BASE', 'DJANGO_SECRET_KEY', 'NEXTAUTH_SECRET', 'OAUTH_CLIENT_SECRET', 'secret'], (r) => r.pick([r.str(HEX, 64), r.str(AN, 32), r.str(B64, 44), r.str(AN + '!#%^*-_+=', 50)])),
  generic_token: n(['ACCESS_TOKEN', 'AUTH_TOKEN', 'REFRESH_TOKEN', 'API_TOKEN', 'BOT_TOKEN', 'INTERNAL_SERVICE_TOKEN', 'CI_DEPLOY_TOKEN', 'PERSONAL_ACCESS_TOKEN', 'token'], (r) => r.pick([r.str(AN, 40), r.str(HEX, 40), r.str(B64U, 48), r.str(AN, 24)])),
  generic_api_key: n(['API_KEY', 'PAYMENTS_API_KEY', 'MAPS_API_KEY', 'SEARCH_API_KEY', 'X-API-KEY', 'INTERNAL_APIKEY', 'SERVICE_KEY', 'LICENSE_KEY', 'ENCRYPTION_KEY', 'api_key'], (r) => r.pick([r.str(HEX, 32), r.str(AN, 40), r.str(HEX.toUpperCase() + 'GHJK', 32), r.str(B64, 44)])),
  // Credentials in URLs
  postgres_url: u((r) => { const p = password(r).replace(/@/g, '_'); return { value: `postgres${r.pick(['', 'ql'])}://${user(r)}:${p}@${host(r)}:5432/app${r.pick(['', '?sslmode=require'])}`, secret: p } }),
  mysql_url: u((r) => { const p = password(r).replace(/@/g, '_'); return { value: `mysql://${user(r)}:${p}@${host(r)}:3306/shop`, secret: p } }),
  mongodb_srv_url: u((r) => { const p = r.str(AN, 16); return { value: `mongodb+srv://${user(r)}:${p}@cluster0.${r.str(LO + DIG, 5)}.mongodb.net/prod?retryWrites=true&w=majority`, secret: p } }),
  redis_url: u((r) => { const p = r.str(AN, r.int(20, 32)); return { value: r.pick([`redis://default:${p}@${host(r)}:6379/0`, `rediss://:${p}@${host(r)}:6380`]), secret: p } }),
  amqp_url: u((r) => { const p = password(r).replace(/@/g, '_'); return { value: `amqp${r.pick(['', 's'])}://${user(r)}:${p}@${host(r)}:5672/%2F`, secret: p } }),
  jdbc_url: u((r) => { const p = password(r).replace(/[@;&]/g, '_'); return { value: r.pick([`jdbc:postgresql://${host(r)}:5432/app?user=${user(r)}&password=${p}&ssl=true`, `jdbc:sqlserver://${host(r)}:1433;databaseName=app;user=sa;password=${p};encrypt=true`, `jdbc:mysql://${user(r)}:${p}@${host(r)}:3306/app`]), secret: p } }),
  https_userinfo_url: u((r) => { const p = r.pick([password(r).replace(/@/g, '_'), r.str(AN, 30)]); return { value: `https://${user(r)}:${p}@${r.pick(['git.acme.internal/acme/app.git', 'registry.acme.io/v2/', 'nexus.acme.local/repository/npm/'])}`, secret: p } }),
  smtp_url: u((r) => { const p = password(r).replace(/@/g, '_'); return { value: `smtp://postmaster%40mg.acme.io:${p}@smtp.mailgun.org:587`, secret: p } }),
  sentry_dsn: u((r) => { const k = r.str(HEX, 32); return { value: `https://${k}@o${r.str(DIG, 6)}.ingest.${r.pick(['', 'us.'])}sentry.io/${r.str(DIG, 7)}`, secret: k } }),
  url_query_credential: u((r) => { const k = r.pick([r.str(AN, 32), r.str(HEX, 40)]); const p = r.pick(['api_key', 'apikey', 'access_token', 'token', 'key', 'client_secret', 'auth']); return { value: `https://api.${r.pick(['weather', 'geo', 'metrics'])}.example.net/v2/${r.pick(['forecast', 'lookup', 'series'])}?q=berlin&${p}=${k}&units=metric`, secret: k } }),
  azure_sas_url: u((r) => { const sig = r.str(AN, 43) + '%3D'; return { value: `https://acme${r.str(LO, 4)}.blob.core.windows.net/backups/db.tar.gz?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=${sig}`, secret: sig } }),
  // Config formats
  kubeconfig_client_key: c((r) => { const d = b64(pem(r, 'RSA PRIVATE KEY', r.int(6, 12)) + '\n'); return { text: kubeconfig(r, `    client-certificate-data: ${b64(pem(r, 'CERTIFICATE', 6) + '\n')}\n    client-key-data: ${d}`), secret: d, context: 'kubeconfig' } }),
  kubeconfig_cert_holding_key: c((r) => { const d = b64(pem(r, 'EC PRIVATE KEY', 3) + '\n'); return { text: kubeconfig(r, `    client-certificate-data: ${d}`), secret: d, context: 'kubeconfig' } }),
  kubeconfig_token: c((r) => { const tok = r.pick([jwt(r, { iss: 'kubernetes/serviceaccount', sub: 'system:serviceaccount:ci:deployer' }), r.str(LO + DIG, 6) + '.' + r.str(LO + DIG, 16), r.str(B64U, 64)]); return { text: kubeconfig(r, `    token: ${tok}`), secret: tok, context: 'kubeconfig' } }),
  docker_config_auth: c((r) => { const a = b64(`${user(r)}:${r.pick([password(r), 'dckr_pat_' + r.str(B64U, 27), r.str(AN, 24)])}`); const reg = r.pick(['https://index.docker.io/v1/', 'ghcr.io', 'registry.acme.io:5000', '123456789012.dkr.ecr.eu-west-1.amazonaws.com']); return { text: `$ cat ~/.docker/config.json\n{\n\t"auths": {\n\t\t"${reg}": {\n\t\t\t"auth": "${a}"\n\t\t}\n\t},\n\t"credsStore": ""\n}`, secret: a, context: 'docker-config' } }),
  netrc_password: c((r) => { const p = r.pick([password(r), r.str(HEX, 40), uuid(r)]); const m = r.pick(['api.heroku.com', 'git.acme.internal', 'urs.earthdata.nasa.gov', 'github.com']); return { text: r.pick([`$ cat ~/.netrc\nmachine ${m}\n  login ${user(r)}@acme.io\n  password ${p}\n`, `machine ${m} login ${user(r)} password ${p}`]), secret: p, context: 'netrc' } }),
  pgpass_line: c((r) => { const p = password(r).replace(/[:\\]/g, '_'); return { text: `$ cat ~/.pgpass\n${r.pick(['localhost', host(r), '*'])}:${r.pick(['5432', '6432', '*', '5433'])}:${r.pick(['app', '*', 'orders'])}:${user(r)}:${p}\n`, secret: p, context: 'pgpass' } }),
  npmrc_auth_token: c((r) => { const tk = r.pick([r.str(AN, 40), uuid(r), r.str(B64, 44)]); return { text: `$ cat .npmrc\n@acme:registry=https://npm.acme.io/\n//npm.acme.io/:_authToken=${tk}\nalways-auth=true\n`, secret: tk, context: 'npmrc' } }),
  npmrc_basic_auth: c((r) => { const a = b64(`${user(r)}:${password(r)}`); return { text: `registry=https://nexus.acme.local/repository/npm/\n_auth=${a}\nemail=ci@acme.io\n`, secret: a, context: 'npmrc' } }),
  pypirc_password: c((r) => { const p = password(r); return { text: `[distutils]\nindex-servers =\n    internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = ${user(r)}\npassword = ${p}\n`, secret: p, context: 'pypirc' } }),
  aws_credentials_file: c((r) => { const s = r.str(B64, 40); return { text: `$ cat ~/.aws/credentials\n[default]\naws_access_key_id = AKIA${r.str(B32, 16)}\naws_secret_access_key = ${s}\nregion = eu-west-1\n`, secret: s, context: 'aws-credentials' } }),
  gcp_service_account_json: c((r) => { const k = pem(r, 'PRIVATE KEY', 20) + '\n'; return { text: JSON.stringify({ type: 'service_account', project_id: 'acme-prod', private_key_id: r.str(HEX, 40), private_key: k, client_email: 'deployer@acme-prod.iam.gserviceaccount.com', client_id: r.str(DIG, 21) }, null, 2), secret: k.split('\n')[3], context: 'gcp-service-account' } }),
}

function kubeconfig(r, userBody) {
  return `$ kubectl config view --raw\napiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${b64(pem(r, 'CERTIFICATE', 8) + '\n')}\n    server: https://10.${r.int(0, 255)}.0.1:6443\n  name: prod\ncontexts:\n- context:\n    cluster: prod\n    user: deployer\n  name: prod\ncurrent-context: prod\nkind: Config\nusers:\n- name: deployer\n  user:\n${userBody}\n`
}

export const SECRET_KINDS = Object.keys(SECRETS)
