import type { ReadabilityStats } from 'wink-nlp';
import { detectLanguage } from '../scoring/sentiment/index.ts';
import { CTA_PHRASES, detectCallsToAction } from './cta.ts';
import { englishNlp } from './nlp.ts';
import { TEXT_RULES, textSweetSpot } from './platform-rules.ts';
import { clamp01 } from './signals.ts';
import type { Signal } from './signals.ts';
import { characterCount, extractEntities } from './text-entities.ts';
import type { Format } from './types.ts';
import type { Platform } from '../core/catalog.ts';

/** Everything measured about a text, before any platform rule is applied. */
export interface TextMeasurements {
  characters: number;
  /** Character count of each post when the text is a thread (posts separated by a blank line). */
  threadPosts: number[];
  firstLine: string;
  firstLineCharacters: number;
  hookDevices: string[];
  callsToAction: string[];
  questions: number;
  hashtags: string[];
  mentions: string[];
  emoji: number;
  links: string[];
  /** wink-nlp document sentiment, -1 to +1. */
  sentiment: number;
  /** The sentence with the lowest wink sentiment when it is negative. */
  mostNegativeSentence: string | null;
  /** ISO 639-1 language of the text ('und' without words), from the sentiment classifier's detector. */
  language: string;
  /** Flesch reading ease from wink-nlp's readabilityStats. */
  readingEase: number;
  words: number;
  sentences: number;
  /** Words of three or more syllables, most frequent first. */
  complexWords: string[];
}

/** Texts with fewer words give a meaningless reading-ease figure, so readability is not judged. */
export const READABILITY_MIN_WORDS = 10;

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
  const doc = nlp.readDoc(text);
  const stats = doc.out(its.readabilityStats) as ReadabilityStats;
  const sentenceTexts = doc.sentences().out() as string[];
  const sentenceScores = doc.sentences().out(its.sentiment) as unknown as number[];
  let mostNegative: string | null = null;
  let lowest = 0;
  sentenceScores.forEach((score, i) => {
    if (score < lowest) {
      lowest = score;
      mostNegative = sentenceTexts[i] ?? null;
    }
  });
  const firstLine = text.trim().split(/\r?\n/u)[0]?.trim() ?? '';
  const entities = extractEntities(text);
  // wink reports normalised spellings ("organisational" -> "organizational"); quote only
  // words the author actually wrote.
  const lowerText = text.toLowerCase();
  const complexWords = Object.entries(stats.complexWords)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([w]) => w)
    .filter((w) => lowerText.includes(w.toLowerCase()));
  return {
    characters: characterCount(text),
    threadPosts: text
      .trim()
      .split(/\r?\n[^\S\r\n]*\r?\n\s*/u)
      .filter((p) => p.trim() !== '')
      .map((p) => characterCount(p.trim())),
    firstLine,
    firstLineCharacters: characterCount(firstLine),
    hookDevices: hookDevices(firstLine),
    callsToAction: detectCallsToAction(text),
    questions: sentenceTexts.filter((s) => s.includes('?')).length,
    hashtags: entities.hashtags,
    mentions: entities.mentions,
    emoji: entities.emoji,
    links: entities.links,
    sentiment: doc.out(its.sentiment) as number,
    mostNegativeSentence: mostNegative,
    language: detectLanguage(text).language,
    readingEase: stats.fres,
    words: stats.numOfWords,
    sentences: stats.numOfSentences,
    complexWords,
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
      suggestion: `Split post ${worst.i + 1} of the thread (posts are separated by a blank line): it is ${n(worst.c)} characters, the limit is ${n(rules.limit)}`,
    };
  }
  const len = m.characters;
  const sweet = textSweetSpot(platform, format);
  const span = `the ${platform} ${format} sweet spot is ${n(sweet.min)}–${n(sweet.max)}`;
  if (len > rules.limit) {
    return {
      ...base,
      quality: 0,
      suggestion: `Cut the ${rules.noun} to under ${n(rules.limit)} characters: it is ${n(len)}`,
    };
  }
  if (len < sweet.min) {
    return {
      ...base,
      quality: 0.4 + (0.6 * len) / sweet.min,
      suggestion: `Expand the ${rules.noun} to at least ${n(sweet.min)} characters (${span}): it is ${n(len)}`,
    };
  }
  if (len > sweet.max) {
    return {
      ...base,
      quality: 1 - (0.5 * (len - sweet.max)) / (rules.limit - sweet.max),
      suggestion: `Tighten the ${rules.noun} to about ${n(sweet.max)} characters (${span}): it is ${n(len)}`,
    };
  }
  return { ...base, quality: 1 };
}

function hookSignal(m: TextMeasurements, platform: Platform): Signal {
  const cut = TEXT_RULES[platform].previewCut;
  const hasDevice = m.hookDevices.length > 0;
  const fits = m.firstLineCharacters <= cut;
  const quality = (hasDevice ? 0.6 : 0) + (fits ? 0.4 : (0.4 * cut) / m.firstLineCharacters);
  const problems: string[] = [];
  if (m.firstLine === '') {
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
    const effect = platform === 'youtube' ? 'ignores every hashtag' : 'refuses the post';
    return {
      ...base,
      quality: 0,
      suggestion: `Remove at least ${count - hashtagCap} hashtag${count - hashtagCap === 1 ? '' : 's'}: above ${hashtagCap} ${platform} ${effect}, and this has ${count}`,
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
    return {
      ...base,
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
  // -0.5 or below scores 0, +0.3 or above scores 1: warm wording helps the sentiment pillar.
  const quality = clamp01((m.sentiment + 0.5) / 0.8);
  const s = m.sentiment.toFixed(2);
  let suggestion: string | undefined;
  if (quality < 1) {
    suggestion =
      m.sentiment < 0 && m.mostNegativeSentence
        ? `Reword the negative phrasing, starting with "${excerpt(m.mostNegativeSentence, 60)}": overall sentiment is ${s} on a -1 to +1 scale`
        : `Add warmer wording (e.g. "love", "excited", "thank you"): sentiment is ${s} on a -1 to +1 scale, aim for +0.30 or more`;
  }
  return {
    id: 'sentiment',
    weight: TEXT_WEIGHTS.sentiment,
    quality,
    pillars: { sentiment: 1 },
    ...(suggestion ? { suggestion } : {}),
  };
}

function readabilitySignal(m: TextMeasurements): Signal {
  const base = { id: 'readability', weight: TEXT_WEIGHTS.readability, pillars: { impact: 0.6, reach: 0.4 } };
  if (m.words < READABILITY_MIN_WORDS) return { ...base, quality: 1 };
  // Flesch reading ease 60 ("plain English") or more scores 1; 30 ("difficult") or less 0.
  const quality = clamp01((m.readingEase - 30) / 30);
  if (quality >= 1) return { ...base, quality };
  const perSentence = (m.words / Math.max(1, m.sentences)).toFixed(0);
  const long = m.complexWords.slice(0, 3).map((w) => `"${w}"`);
  return {
    ...base,
    quality,
    suggestion:
      `Simplify the wording: Flesch reading ease is ${m.readingEase} (aim for 60 or more) with ${perSentence} words per sentence` +
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
      suggestion: `Keep to one or two questions: the text asks ${m.questions}, which reads like a quiz`,
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

export function textSignals(m: TextMeasurements, platform: Platform, format: Format): Signal[] {
  const english = m.language === 'en' || m.language === 'und';
  return allTextSignals(m, platform, format).filter((s) => english || !ENGLISH_ONLY_SIGNALS.has(s.id));
}

function allTextSignals(m: TextMeasurements, platform: Platform, format: Format): Signal[] {
  return [
    lengthSignal(m, platform, format),
    hookSignal(m, platform),
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
