/** What `switchboard --help` ends with: the environment variables read and the exit codes. */
export const HELP_FOOTER = `
Environment variables:
  PRIMARY_API_KEY                 the primary provider's key (resolution rule 5)
  PRIMARY_BASE_URL                its address (default https://api.primary.example)
  GATEWAY_API_KEY                 the gateway's key (rule 6, when no primary key is set)
  GATEWAY_BASE_URL                its address (default https://gateway.example/api/v1)
  SWITCHBOARD_CLIENT              scripted, dump, unsafe, ...: an offline scripted client (rule 2)
  SWITCHBOARD_ALLOW_INSECURE_HTTP 1 lets a key go over plain http to a host that is not loopback
  NO_COLOR, FORCE_COLOR           turn colour off or on
  The variable a config's models.chat_api_key_env names holds the key of models.chat_base_url.
  An empty variable counts as unset. Keys are never printed.

Exit codes:
  0  done
  1  a call or operation failed (the provider refused or timed out, a journal could not be written)
  2  bad input: an option, a config file, a usage log or journal line, an unknown SWITCHBOARD_CLIENT,
     or no chat endpoint to use
  With --json, a failure also prints {"error": {"message", "exitCode", "kind", "status"}} on stdout.
`;
