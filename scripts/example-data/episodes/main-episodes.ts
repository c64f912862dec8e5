// The main episodes in story order, and the prompt queued while the full test run goes.
import { exploreEpisode } from './explore-auth';
import { fullRunEpisode } from './full-run';
import { importEpisode } from './import-add-date';
import { lintEpisode } from './lint';
import { paginationEpisode } from './pagination';
import { rateLimitEpisode } from './rate-limiter';
import { reviewEpisode } from './review';
import type { Episode } from './story';
import { tagSearchEpisode } from './tag-search';
import { urlEpisode } from './url-normalization';
import { webhookEpisode } from './webhook-410';

export const MAIN_EPISODES: Episode[] = [
  exploreEpisode,
  paginationEpisode,
  urlEpisode,
  rateLimitEpisode,
  tagSearchEpisode,
  importEpisode,
  fullRunEpisode,
  webhookEpisode,
  lintEpisode,
  reviewEpisode,
];

export const WEBHOOK_PROMPT =
  'While that runs: webhook deliveries get retried forever when the receiver answers 410 Gone. A 410 should disable the webhook instead of retrying.';
