/** What `switchboard --help` ends with: the environment variables read and the exit codes. */
export const HELP_FOOTER = `
Environment variables:
  PRIMARY_API_KEY                 the primary provider's key (resolution rule 5)
  PRIMARY_BASE_URL                its address (default https://api.primary.example)
  GATEWAY_API_KEY                 the gateway's key (rule 6, when no primary key is set)
  GATEWAY_BASE_URL                its address (default https://gateway.example/api/v1)
  SWITCHBOARD_CLIENT              scripted, dump, unsafe, ...: an offline scripted client (rule 2)
  SWITCHBOARD_ALLOW_INSECURE_HTTP 1 lets a key go over plain http to a host that is not loopback
  SWITCHBOARD_CASSETTE            record or replay: the calls are recorded to, or replayed from, a cassette
  SWITCHBOARD_CASSETTE_PATH       the cassette file (JSON Lines) SWITCHBOARD_CASSETTE uses
  SWITCHBOARD_CASSETTE_RUN        recording: the run the process belongs to (every process of one run
                                  appends; a new run replaces the cassette once)
  OTEL_SEMCONV_STABILITY_OPT_IN   not read by this CLI, which emits no OpenTelemetry; the observer of
                                  @switchboard/telemetry reads it in your program
  NO_COLOR, FORCE_COLOR           turn colour off or on
  The variable a config's models.chat_api_key_env names holds the key of models.chat_base_url.
  The config is --config FILE, else ./switchboard.toml when there is one (resolve says which).
  An empty variable counts as unset. Keys are never printed.

Exit codes:
  0  done
  1  a call or operation failed (the provider refused or timed out, a journal could not be written)
  2  bad input: an option, a config file, a usage log or journal line, an unknown SWITCHBOARD_CLIENT,
     no chat endpoint to use, or one that cannot do the command (models with the scripted client)
  With --json, a failure also prints {"error": {"message", "exitCode", "kind", "status"}} on stdout.
`;
