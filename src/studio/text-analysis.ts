import type { ReadabilityStats } from 'wink-nlp';
import { classifyWithDefaultModel, detectLanguage, forWink } from '../scoring/sentiment/index.ts';
import { CTA_PHRASES, detectCallsToAction } from './cta.ts';
import { englishNlp } from './nlp.ts';
import { TEXT_RULES, textSweetSpot } from './platform-rules.ts';
import { clamp01 } from './signals.ts';
import type { Signal } from './signals.ts';
import { characterCount, extractEntities, proseOf } from './text-entities.ts';
import {
  isStuffing,
  measureQuality,
  QUALITY_CAPS,
  qualitySignals,
  STUFFING_DETAIL,
  type QualityFinding,
} from './text-quality.ts';
import type { Format, NotJudged } from './types.ts';
import type { Platform } from '../core/catalog.ts';

/** Everything measured about a text, before any platform rule is applied. */
export interface TextMeasurements {
  characters: number;
  /** Characters of the words alone (proseOf): what the length sweet spot is about. */
  proseCharacters: number;
  /** Character count of each post when the text is a thread (posts separated by a blank line). */
  threadPosts: number[];
  firstLine: string;
  firstLineCharacters: number;
  /** Hook devices anywhere in the first line's words. */
  hookDevices: string[];
  /** Hook devices of the first line's opening sentence: what survives tightening from the end. */
  openingDevices: string[];
  callsToAction: string[];
  questions: number;
  hashtags: string[];
  mentions: string[];
  emoji: number;
  links: string[];
  /** Mean over sentences of P(positive) - P(negative) from the default sentiment classifier, -1 to +1. */
  sentiment: number;
  /** Sentences the classifier calls negative with confidence >= NEGATIVE_CONFIDENCE. */
  negativeSentences: number;
  /** Sentences judged (a line break ends one). */
  toneSentences: number;
  /** The most confidently negative of them, or null. */
  mostNegativeSentence: string | null;
  /** ISO 639-1 language of the text ('und' without words), from the sentiment classifier's detector. */
  language: string;
  /** Flesch reading ease from wink-nlp's readabilityStats. */
  readingEase: number;
  /** Sentences under HARD_READING_EASE, hardest first. */
  hardSentences: string[];
  words: number;
  sentences: number;
  /** Words of three or more syllables, most frequent first. */
  complexWords: string[];
  /** The wording of a recall, apology, outage or safety notice (ANNOUNCEMENT). */
  announcement: boolean;
  /** Junk, claims, spam, shouting, stuffing and repetition found (text-quality.ts). */
  quality: QualityFinding[];
}

/**
 * Wording of a notice rather than a promotion: recalls, apologies, outages, breaches, safety
 * warnings. Such a text is judged in announcement mode (no tone, call-to-action, question or
 * emoji advice). Phrases, not single words, so "sorry not sorry" or "recall the summer" in a
 * promotion do not switch modes.
 */
const ANNOUNCEMENT =
  /\b(?:product recall|recall (?:of|notice)|(?:recalling|recalled) (?:the|our|all|some|batch|batches|lots?|units?|products?)|voluntary recall|safety (?:notice|alert|warning|recall)|do not (?:consume|eat|drink|use (?:the|this|it|affected))|stop using (?:the|this|it|affected)|we (?:sincerely |deeply |truly )?apologi[sz]e|our (?:sincere |deepest )?apologies|we(?:'re| are) (?:so |very |deeply |truly |really )?sorry|(?:service |system |network |partial |major )?outage|service (?:disruption|interruption)|(?:is|are) currently (?:down|unavailable)|data (?:breach|incident)|security (?:incident|breach)|incident update|affected (?:batch|batches|lots?|customers|users|products?|units))\b/iu;

/** A sentence reads as negative when the classifier says so with at least this confidence. */
export const NEGATIVE_CONFIDENCE = 0.8;

/** Flesch reading ease below which a sentence is "very difficult" (college graduate level). */
export const HARD_READING_EASE = 30;
/** Shorter sentences give a meaningless reading-ease figure and are not judged. */
export const HARD_SENTENCE_MIN_WORDS = 5;

// Openers that stop the scroll: a curiosity or command word in first position.
// prettier-ignore
const HOOK_OPENERS = new Set([
  'stop', 'wait', 'discover', 'how', 'why', 'what', 'new', 'secret', 'never', 'imagine', 'meet',
  'introducing', 'finally', 'warning', 'breaking', 'psst', 'ever', 'want', 'need', 'pov', 'unpopular',
  'nobody', 'everyone', "here's", 'quick', 'free', 'announcing', 'confession', 'truth',
]);

const CTA_EXAMPLE: Record<Platform, string> = {
  instagram: 'Save this for later',
  tiktok: 'Follow for part 2',
  youtube: 'Subscribe for the next episode',
  twitter: 'Reply with your take',
  facebook: 'Share this with a friend who needs it',
};

const n = (x: number) => x.toLocaleString('en-US');

function excerpt(text: string, max = 40): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

function hookDevices(firstLine: string): string[] {
  const devices: string[] = [];
  const lower = firstLine.toLowerCase();
  if (lower.includes('?')) devices.push('question');
  // A number leads a listicle ("5 ways", "Top 10"); a date deep in the sentence is no hook.
  if (/\p{N}/u.test(lower.split(/\s+/u).slice(0, 3).join(' '))) devices.push('number');
  if (/\b(you|your|you're|yours|yourself)\b/u.test(lower)) devices.push('you');
  const firstWord = lower.match(/[\p{L}']+/u)?.[0];
  if (firstWord !== undefined && HOOK_OPENERS.has(firstWord)) devices.push('opener');
  return devices;
}

export async function measureText(text: string): Promise<TextMeasurements> {
  const nlp = await englishNlp();
  const its = nlp.its;
  // Wording checks read the words only: a hashtag or an emoji is its own check, not a sentence.
  const prose = proseOf(text);
  // wink reads runs of at most WINK_MAX_RUN characters (its tokenizer is quadratic in a run).
  const winkProse = forWink(prose);
  const doc = nlp.readDoc(winkProse);
  const stats = doc.out(its.readabilityStats) as ReadabilityStats;
  // A line break ends a sentence: a hook line has no full stop but is not part of the next line.
  const sentenceTexts = winkProse
    .split(/\r?\n/u)
    .flatMap((line) => (line.trim() ? (nlp.readDoc(line).sentences().out() as string[]) : []));
  // Tone is read sentence by sentence by the service's own comment classifier
  // (src/scoring/sentiment), which knows complaints and sarcasm; wink's word list called "We made
  // a new mug for your desk." -0.5, and a whole-caption judgement drifts with every added line.
  // The classifier was trained on comments and misreads some caption phrasing ("Glow every day
  // with us." as a complaint), so a sentence counts as negative only when wink's lexicon also
  // scores it below zero: two independent readers agreeing.
  const tones = sentenceTexts.map((sentence) => ({ sentence, ...classifyWithDefaultModel(sentence) }));
  const negative = tones
    .filter(
      (t) =>
        t.label === 'negative' &&
        t.confidence >= NEGATIVE_CONFIDENCE &&
        (nlp.readDoc(t.sentence).out(its.sentiment) as number) < 0,
    )
    .sort((a, b) => b.confidence - a.confidence);
  const net = tones.map((t) => t.probabilities.positive - t.probabilities.negative);
  // Reading ease is judged per sentence too: a hard sentence is a problem wherever it stands, and
  // adding or cutting plain sentences elsewhere does not hide or create one.
  const hard = sentenceTexts
    .map((sentence) => ({
      sentence,
      stats: nlp.readDoc(sentence).out(its.readabilityStats) as ReadabilityStats,
    }))
    .filter((h) => h.stats.numOfWords >= HARD_SENTENCE_MIN_WORDS && h.stats.fres < HARD_READING_EASE)
    .sort((a, b) => a.stats.fres - b.stats.fres);
  const firstLine = text.trim().split(/\r?\n/u)[0]?.trim() ?? '';
  const entities = extractEntities(text);
  const language = detectLanguage(prose).language;
  // wink reports normalised spellings ("organisational" -> "organizational"); quote only
  // words the author actually wrote.
  const lowerText = text.toLowerCase();
  const complexWords = Object.entries(stats.complexWords)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([w]) => w)
    .filter((w) => lowerText.includes(w.toLowerCase()));
  return {
    characters: characterCount(text),
    proseCharacters: characterCount(prose),
    threadPosts: text
      .trim()
      .split(/\r?\n[^\S\r\n]*\r?\n\s*/u)
      .filter((p) => p.trim() !== '')
      .map((p) => characterCount(p.trim())),
    firstLine,
    firstLineCharacters: characterCount(firstLine),
    // A link or a hashtag is no hook: devices are read from the words of the first line.
    hookDevices: hookDevices(proseOf(firstLine)),
    openingDevices: hookDevices(
      (
        nlp
          .readDoc(forWink(proseOf(firstLine)))
          .sentences()
          .out() as string[]
      )[0] ?? '',
    ),
    callsToAction: detectCallsToAction(text),
    questions: sentenceTexts.filter((s) => s.includes('?')).length,
    hashtags: entities.hashtags,
    mentions: entities.mentions,
    emoji: entities.emoji,
    links: entities.links,
    sentiment: net.length ? net.reduce((a, b) => a + b, 0) / net.length : 0,
    negativeSentences: negative.length,
    toneSentences: tones.length,
    mostNegativeSentence: negative[0]?.sentence ?? null,
    language,
    readingEase: stats.fres,
    hardSentences: hard.map((h) => h.sentence),
    words: stats.numOfWords,
    sentences: stats.numOfSentences,
    complexWords,
    announcement: ANNOUNCEMENT.test(text.replace(/’/gu, "'")),
    quality: measureQuality(text, prose, entities.links, language),
  };
}

/** Weights of the text signals; they add up to 100 (see docs/studio.md). */
export const TEXT_WEIGHTS = {
  length: 20,
  hook: 14,
  hashtags: 12,
  call_to_action: 12,
  sentiment: 12,
  readability: 10,
  questions: 6,
  emoji: 5,
  links: 5,
  mentions: 4,
} as const;

function lengthSignal(m: TextMeasurements, platform: Platform, format: Format): Signal {
  const rules = TEXT_RULES[platform];
  const base = { id: 'length', weight: TEXT_WEIGHTS.length, pillars: { presence: 0.5, reach: 0.5 } };
  if (format === 'thread') {
    const over = m.threadPosts.map((c, i) => ({ c, i })).filter((p) => p.c > rules.limit);
    if (over.length === 0) return { ...base, quality: 1 };
    const worst = over.reduce((a, b) => (b.c > a.c ? b : a));
    return {
      ...base,
      quality: 0,
      blocker: true,
      suggestion: `Split post ${worst.i + 1} of the thread (posts are separated by a blank line): it is ${n(worst.c)} characters, the limit is ${n(rules.limit)}`,
    };
  }
  if (m.characters > rules.limit) {
    return {
      ...base,
      quality: 0,
      blocker: true,
      // Just under the limit the wording is still long: the length check's quality there.
      fixedQuality: 0.5,
      suggestion: `Cut the ${rules.noun} to under ${n(rules.limit)} characters: it is ${n(m.characters)}`,
    };
  }
  // The sweet spot is about the words: hashtags, mentions, links and emoji have their own checks.
  const len = m.proseCharacters;
  const sweet = textSweetSpot(platform, format);
  const span = `the ${platform} ${format} sweet spot is ${n(sweet.min)}–${n(sweet.max)} characters of wording`;
  if (len < sweet.min) {
    return {
      ...base,
      quality: 0.4 + (0.6 * len) / sweet.min,
      suggestion: `Expand the wording to at least ${n(sweet.min)} characters, below the opening line (${span}): it is ${n(len)}`,
    };
  }
  if (len > sweet.max) {
    return {
      ...base,
      quality: 1 - (0.5 * (len - sweet.max)) / (rules.limit - sweet.max),
      suggestion: `Tighten the wording to about ${n(sweet.max)} characters (${span}): it is ${n(len)}`,
    };
  }
  return { ...base, quality: 1 };
}

function hookSignal(
  m: TextMeasurements,
  platform: Platform,
  announcement: boolean,
  devices = m.hookDevices,
): Signal {
  const cut = TEXT_RULES[platform].previewCut;
  // A notice needs its first line seen, not a curiosity device: only the fit is judged.
  const hasDevice = announcement || devices.length > 0;
  const fits = m.firstLineCharacters <= cut;
  const quality = (hasDevice ? 0.6 : 0) + (fits ? 0.4 : (0.4 * cut) / m.firstLineCharacters);
  const problems: string[] = [];
  if (m.firstLine === '' && !announcement) {
    problems.push('write an opening line that hooks (a question, a number or "you"): the text is empty');
  } else if (!hasDevice) {
    problems.push(
      `open with a hook: the first line ("${excerpt(m.firstLine)}") has no question, number, "you" or strong opener such as "Stop" or "Discover"`,
    );
  }
  if (!fits) {
    problems.push(
      `shorten the opening line to under ${n(cut)} characters so it shows before the "more" cut: it is ${n(m.firstLineCharacters)}`,
    );
  }
  const text = problems.join('; and ');
  return {
    id: 'hook',
    weight: TEXT_WEIGHTS.hook,
    quality,
    pillars: { reach: 0.4, momentum: 0.4, impact: 0.2 },
    ...(problems.length ? { suggestion: text.charAt(0).toUpperCase() + text.slice(1) } : {}),
  };
}

function hashtagSignal(m: TextMeasurements, platform: Platform): Signal {
  const { hashtags: norm, hashtagCap } = TEXT_RULES[platform];
  const count = m.hashtags.length;
  const base = { id: 'hashtags', weight: TEXT_WEIGHTS.hashtags, pillars: { reach: 0.7, presence: 0.3 } };
  const range = `the ${platform} norm is ${norm.min}–${norm.max}`;
  if (hashtagCap !== null && count > hashtagCap) {
    const refused = platform !== 'youtube';
    const effect = refused ? 'refuses the post' : 'ignores every hashtag';
    return {
      ...base,
      quality: 0,
      ...(refused ? { blocker: true } : {}),
      suggestion: `Cut the hashtags to ${norm.max} or fewer: above ${hashtagCap} ${platform} ${effect}, and this has ${count}`,
    };
  }
  if (count < norm.min) {
    const missing = norm.min - count;
    return {
      ...base,
      quality: 0.3 + (0.7 * count) / norm.min,
      suggestion: `Add ${missing} relevant hashtag${missing === 1 ? '' : 's'} (${range}): it has ${count}`,
    };
  }
  if (count > norm.max) {
    // Stuffing caps the score as a quality flag; cutting the hashtags lifts the cap too.
    const stuffed = isStuffing(count, m.words)
      ? {
          cap: QUALITY_CAPS.hashtag_stuffing,
          flag: { check: 'hashtag_stuffing' as const, detail: STUFFING_DETAIL(count, m.words) },
        }
      : {};
    return {
      ...base,
      ...stuffed,
      quality: Math.max(0.2, 1 - 0.15 * (count - norm.max)),
      suggestion: `Cut the hashtags to ${norm.max} or fewer (${range}): it has ${count}`,
    };
  }
  return { ...base, quality: 1 };
}

function ctaSignal(m: TextMeasurements, platform: Platform): Signal {
  const found = m.callsToAction.length > 0;
  return {
    id: 'call_to_action',
    weight: TEXT_WEIGHTS.call_to_action,
    quality: found ? 1 : 0,
    pillars: { impact: 0.6, momentum: 0.4 },
    ...(found
      ? {}
      : {
          suggestion: `End with a call to action such as "${CTA_EXAMPLE[platform]}": none of the ${CTA_PHRASES.length} call-to-action phrases checked appears`,
        }),
  };
}

function sentimentSignal(m: TextMeasurements): Signal {
  // Only clearly negative sentences are a problem to fix: neutral, factual wording is not pushed
  // towards "warmer" words (a format checklist cannot tell what the content calls for).
  // Each negative sentence costs half the check, wherever it stands.
  const quality = clamp01(1 - m.negativeSentences / 2);
  const quote = m.mostNegativeSentence ? `, starting with "${excerpt(m.mostNegativeSentence, 60)}"` : '';
  return {
    id: 'sentiment',
    weight: TEXT_WEIGHTS.sentiment,
    quality,
    // Neutral wording predicts no change of the sentiment pillar, warm wording a rise.
    outlook: clamp01((m.sentiment + 1) / 2),
    pillars: { sentiment: 1 },
    ...(quality < 1
      ? {
          suggestion: `Reword the negative phrasing${quote}: ${m.negativeSentences} of ${m.toneSentences} sentences read as negative`,
        }
      : {}),
  };
}

function readabilitySignal(m: TextMeasurements): Signal {
  const base = { id: 'readability', weight: TEXT_WEIGHTS.readability, pillars: { impact: 0.6, reach: 0.4 } };
  // Each very difficult sentence costs half the check.
  const count = m.hardSentences.length;
  if (count === 0) return { ...base, quality: 1 };
  const hardest = m.hardSentences[0] ?? '';
  const lower = m.hardSentences.join(' ').toLowerCase();
  const long = m.complexWords
    .filter((w) => lower.includes(w.toLowerCase()))
    .slice(0, 3)
    .map((w) => `"${w}"`);
  return {
    ...base,
    quality: clamp01(1 - count / 2),
    suggestion:
      `Simplify the wording of ${count} sentence${count === 1 ? '' : 's'} under Flesch reading ease ${HARD_READING_EASE}, starting with "${excerpt(hardest, 60)}"` +
      (long.length ? `; swap long words such as ${long.join(', ')}` : ''),
  };
}

function questionSignal(m: TextMeasurements): Signal {
  const base = { id: 'questions', weight: TEXT_WEIGHTS.questions, pillars: { impact: 0.5, momentum: 0.5 } };
  if (m.questions === 0) {
    return {
      ...base,
      quality: 0.4,
      suggestion:
        'Ask your audience one question (e.g. "Which one would you pick?") to invite replies: the text has none',
    };
  }
  if (m.questions > 3) {
    return {
      ...base,
      quality: 0.6,
      suggestion: `Keep to one or two questions (make the others statements): the text asks ${m.questions}, which reads like a quiz`,
    };
  }
  return { ...base, quality: 1 };
}

function emojiSignal(m: TextMeasurements, platform: Platform): Signal {
  const norm = TEXT_RULES[platform].emoji;
  const base = { id: 'emoji', weight: TEXT_WEIGHTS.emoji, pillars: { sentiment: 0.5, presence: 0.5 } };
  if (m.emoji < norm.min) {
    return {
      ...base,
      quality: 0.5,
      suggestion: `Add an emoji near the start to catch the eye (the ${platform} norm is ${norm.min}–${norm.max}): the text has ${m.emoji}`,
    };
  }
  if (m.emoji > norm.max) {
    return {
      ...base,
      quality: Math.max(0.2, 1 - 0.1 * (m.emoji - norm.max)),
      suggestion: `Cut the emoji to ${norm.max} or fewer: the text has ${m.emoji}`,
    };
  }
  return { ...base, quality: 1 };
}

function linkSignal(m: TextMeasurements, platform: Platform): Signal {
  const base = { id: 'links', weight: TEXT_WEIGHTS.links, pillars: { impact: 0.5, reach: 0.5 } };
  const count = m.links.length;
  if (count === 0) return { ...base, quality: 1 };
  if (!TEXT_RULES[platform].linksClickable) {
    return {
      ...base,
      quality: 0,
      suggestion: `Move the link to your bio and say "link in bio": links in ${platform} captions are not clickable (found ${count}: ${excerpt(m.links[0] ?? '', 50)})`,
    };
  }
  if (count > 1 && platform !== 'youtube') {
    return {
      ...base,
      quality: 0.5,
      suggestion: `Keep to one link: the ${TEXT_RULES[platform].noun} has ${count}, and each extra link splits the clicks`,
    };
  }
  return { ...base, quality: 1 };
}

function mentionSignal(m: TextMeasurements): Signal {
  const base = { id: 'mentions', weight: TEXT_WEIGHTS.mentions, pillars: { reach: 0.6, presence: 0.4 } };
  const count = m.mentions.length;
  if (count <= 3) return { ...base, quality: 1 };
  return {
    ...base,
    quality: Math.max(0, 1 - 0.2 * (count - 3)),
    suggestion: `Tag at most 3 accounts: the text tags ${count}, which reads as spam`,
  };
}

/**
 * Signals that read English words (wink's English sentiment and syllable counts, the English
 * call-to-action phrases). For text in another language they are not judged at all, so the
 * score is the weighted share of the signals that are, instead of a misjudgement.
 */
export const ENGLISH_ONLY_SIGNALS = new Set(['sentiment', 'readability', 'call_to_action']);

/**
 * Signals an announcement (recall, apology, outage notice) is not judged on: tone, calls to
 * action, questions and emoji would push a notice towards cheerful engagement bait.
 */
export const ANNOUNCEMENT_SKIPS = new Set(['sentiment', 'call_to_action', 'questions', 'emoji']);

export function isEnglish(language: string): boolean {
  return language === 'en' || language === 'und';
}

/** The checks a text is not judged on, each with the first reason that applies. */
export function notJudgedChecks(m: TextMeasurements, announcement: boolean): NotJudged[] {
  const out: NotJudged[] = [];
  for (const check of Object.keys(TEXT_WEIGHTS)) {
    if (!isEnglish(m.language) && ENGLISH_ONLY_SIGNALS.has(check)) out.push({ check, reason: 'language' });
    else if (announcement && ANNOUNCEMENT_SKIPS.has(check)) out.push({ check, reason: 'announcement' });
  }
  return out;
}

export function textSignals(
  m: TextMeasurements,
  platform: Platform,
  format: Format,
  announcement = false,
): Signal[] {
  const skipped = new Set(notJudgedChecks(m, announcement).map((c) => c.check));
  const room = format === 'thread' ? Infinity : TEXT_RULES[platform].limit - m.characters;
  return [...allTextSignals(m, platform, format, announcement), ...qualitySignals(m.quality)]
    .filter((s) => !skipped.has(s.id))
    .map((s) => {
      // Advice to add text that would push it over the hard limit is withheld: following it
      // would get the post refused. The checks that cut text come first.
      const adds = s.suggestion === undefined ? 0 : charactersAdded(s, m, platform, format);
      if (adds > 0 && adds > room) {
        const { suggestion: _withheld, ...rest } = s;
        return rest;
      }
      // Words added to follow it lengthen the wording: the lift counts the length check as it
      // will then stand when that costs (past the sweet spot), never as a gain: a writer may
      // follow it by rewording rather than adding ("You will want this" for a hook), and a lift
      // that counted a longer caption's length gain would then claim points it never delivers.
      if (s.id === 'length' && s.suggestion?.startsWith('Tighten')) {
        // Tightening cuts sentences, which may take a hook device with them: the lift counts the
        // hook as it stands on the opening sentence alone, when that is less.
        const now = hookSignal(m, platform, announcement);
        const after = hookSignal(m, platform, announcement, m.openingDevices);
        return after.quality < now.quality ? { ...s, whatIf: [after] } : s;
      }
      const words = s.id === 'length' || s.id === 'hashtags' || s.id === 'emoji' ? 0 : adds;
      if (words === 0) return s;
      const longer = { ...m, characters: m.characters + words, proseCharacters: m.proseCharacters + words };
      const after = lengthSignal(longer, platform, format);
      const now = lengthSignal(m, platform, format);
      return after.quality < now.quality ? { ...s, whatIf: [after] } : s;
    });
}

/** Characters a writer adds to follow `s`'s suggestion, generously (0 for advice that cuts). */
function charactersAdded(s: Signal, m: TextMeasurements, platform: Platform, format: Format): number {
  const rules = TEXT_RULES[platform];
  switch (s.id) {
    case 'length': {
      const missing = textSweetSpot(platform, format).min - m.proseCharacters;
      // Words come in sentences: a writer overshoots by up to one.
      return missing > 0 ? missing + 45 : 0;
    }
    case 'hashtags':
      return Math.max(0, rules.hashtags.min - m.hashtags.length) * 12;
    case 'hook':
      return m.hookDevices.length === 0 ? 30 : 0;
    case 'call_to_action':
    case 'questions':
      return m.questions === 0 || s.id === 'call_to_action' ? 30 : 0;
    case 'emoji':
      return m.emoji < rules.emoji.min ? 2 * (rules.emoji.min - m.emoji) : 0;
    case 'links':
      // "link in bio" where captions' links are not clickable; "keep to one link" only cuts.
      return rules.linksClickable ? 0 : 12;
    default:
      return 0;
  }
}

function allTextSignals(
  m: TextMeasurements,
  platform: Platform,
  format: Format,
  announcement: boolean,
): Signal[] {
  return [
    lengthSignal(m, platform, format),
    hookSignal(m, platform, announcement),
    hashtagSignal(m, platform),
    ctaSignal(m, platform),
    sentimentSignal(m),
    readabilitySignal(m),
    questionSignal(m),
    emojiSignal(m, platform),
    linkSignal(m, platform),
    mentionSignal(m),
  ];
}
