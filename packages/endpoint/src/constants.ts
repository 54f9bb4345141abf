/** The detector ("hunter") model when `models.hunter` is unset (spec 2.5, 9.2). */
export const DEFAULT_DETECTOR_MODEL = 'primary-flash';

/** The judge model when `models.judge` is unset; the same model as the detector's (spec 9.3). */
export const DEFAULT_JUDGE_MODEL = 'primary-flash';

/** The primary platform's address. It carries no version suffix: the platform rejects a `/v1` path (spec 7, 9.1). */
export const PRIMARY_DEFAULT_BASE_URL = 'https://api.primary.example';

/** The gateway's address when `GATEWAY_BASE_URL` is unset. It carries a version path (spec 9.1). */
export const GATEWAY_DEFAULT_BASE_URL = 'https://gateway.example/api/v1';

/** The environment variable whose lowercased, trimmed value selects a scripted client (spec 2.5). */
export const SCRIPTED_FLAG_ENV = 'SWITCHBOARD_CLIENT';
