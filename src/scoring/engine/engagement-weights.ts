/** Weighted engagement: saves and shares signal intent more than comments, comments more than likes. */
export const ENGAGEMENT_WEIGHTS = { likes: 1, comments: 2, shares: 3, saves: 3, mentions: 2 } as const;
