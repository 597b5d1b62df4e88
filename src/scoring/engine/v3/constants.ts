/** Constants of formula v3's momentum shared by the engine (./score.ts) and its explanations (./explain.ts). */

/** Weights of momentum's signals, as v2's: engagement, views and the deterioration of sentiment. */
export const MOMENTUM_WEIGHTS = { engagement: 0.4, views: 0.3, sentiment: 0.3 } as const;
/** Net sentiment this far below the median band before the last week's sentiment moves momentum. */
export const SENTIMENT_BAND = 0.15;
