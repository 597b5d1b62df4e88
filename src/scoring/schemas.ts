// TypeBox schemas of the formula v2 extension fields, shared by the score and audit responses.
import { Type } from 'typebox';

export const ScoreInterval = Type.Object(
  {
    low: Type.Number({ description: 'lower bound, 0-100' }),
    high: Type.Number({ description: 'upper bound, 0-100' }),
  },
  {
    description:
      'extension (formula v2): 90% interval, a delete-a-block jackknife over the window\'s days (docs/scoring.md "Formula v2 in the API")',
  },
);

export const AuthenticityFlags = Type.Array(
  Type.Object({
    code: Type.Enum(['follower_spike', 'engagement_pod', 'view_spike', 'views_unreported'], {
      description:
        "follower_spike: growth beyond the account's own history (not counted); engagement_pod: a fixed block of engagement on post days (not credited); view_spike: one day holds > 30% of the views (capped); views_unreported: visibility not scored",
    }),
    platform: Type.String(),
    day: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'the day the evidence points at; null for the whole window',
    }),
    detail: Type.String({ description: 'one sentence with the figures' }),
  }),
  {
    description:
      'extension (formula v2): evidence for a human to look at, not a verdict; the score already leaves the flagged data out',
  },
);

export const Stale = Type.Boolean({
  description: 'extension (formula v2): the latest snapshot is more than 3 days old (see latest_data_day)',
});

export const LatestDataDay = Type.Union([Type.String({ format: 'date' }), Type.Null()], {
  description: 'extension (formula v2): the latest day with a snapshot over the scored platforms',
});

/** Extension fields of a v2 score (absent on v1 scores). */
export const V2ScoreFields = {
  interval: Type.Optional(ScoreInterval),
  pillar_intervals: Type.Optional(
    Type.Object(
      {
        presence: ScoreInterval,
        reach: ScoreInterval,
        impact: ScoreInterval,
        sentiment: ScoreInterval,
        momentum: ScoreInterval,
      },
      { description: 'extension (formula v2): 90% interval of each pillar' },
    ),
  ),
  stale: Type.Optional(Stale),
  latest_data_day: Type.Optional(LatestDataDay),
  authenticity_flags: Type.Optional(AuthenticityFlags),
};
