import type { WinkMethods } from 'wink-nlp';

/**
 * wink-nlp with its English web model, loaded on first use: the model takes ~100 ms and a
 * few MB, which the server should not pay at start-up unless content scoring is used.
 */
let loading: Promise<WinkMethods> | undefined;

export function englishNlp(): Promise<WinkMethods> {
  loading ??= (async () => {
    const [{ default: winkNLP }, { default: model }] = await Promise.all([
      import('wink-nlp'),
      import('wink-eng-lite-web-model'),
    ]);
    return winkNLP(model);
  })();
  return loading;
}
