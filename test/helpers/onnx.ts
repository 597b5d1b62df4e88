/**
 * Builds tiny ONNX models for tests, hand-encoded in protobuf wire format (only the fields of
 * onnx.proto the graph needs): Y = Softmax(X · W + B), a bag-of-words linear classifier.
 */

const textEncoder = new TextEncoder();

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

type Field = number[];
const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, n: number | bigint): Field => [...key(field, 0), ...varint(n)];
const bytes = (field: number, b: ArrayLike<number>): Field => [
  ...key(field, 2),
  ...varint(b.length),
  ...Array.from(b),
];
const str = (field: number, s: string): Field => bytes(field, textEncoder.encode(s));
const msg = (field: number, ...parts: Field[]): Field => bytes(field, parts.flat());

const FLOAT = 1;

/** ValueInfoProto for a float tensor; a null dimension is symbolic ("N"). */
const valueInfo = (field: number, name: string, dims: (number | null)[]) =>
  msg(
    field,
    str(1, name),
    msg(
      2, // TypeProto
      msg(
        1, // tensor_type
        int(1, FLOAT),
        msg(2, ...dims.map((d) => msg(1, d === null ? str(2, 'N') : int(1, d)))),
      ),
    ),
  );

const tensor = (name: string, dims: number[], values: number[]) => {
  const raw = new Uint8Array(new Float32Array(values).buffer);
  return msg(5, ...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytes(9, raw));
};

const node = (op: string, inputs: string[], outputs: string[], attrs: Field[] = []) =>
  msg(1, ...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(4, op), ...attrs);

/**
 * weights[v][k]: weight of vocabulary entry v for label k; bias[k] per label.
 * Input 'bow' [N, V] float counts; output 'probabilities' [N, K].
 */
export function buildBagOfWordsModel(weights: number[][], bias: number[]): Uint8Array {
  const V = weights.length;
  const K = bias.length;
  const graph = msg(
    7,
    node('MatMul', ['bow', 'W'], ['xw']),
    node('Add', ['xw', 'B'], ['logits']),
    node('Softmax', ['logits'], ['probabilities'], [msg(5, str(1, 'axis'), int(3, -1), int(20, 2))]),
    str(2, 'bow-linear'),
    tensor('W', [V, K], weights.flat()),
    tensor('B', [K], bias),
    valueInfo(11, 'bow', [null, V]),
    valueInfo(12, 'probabilities', [null, K]),
  );
  const model = [
    ...int(1, 8), // ir_version
    ...str(2, 'brand-health-tests'),
    ...graph,
    ...msg(8, str(1, ''), int(2, 13)), // opset_import: default domain, opset 13
  ];
  return new Uint8Array(model);
}
