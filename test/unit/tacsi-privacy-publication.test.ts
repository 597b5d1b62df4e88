import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  METHODOLOGIES,
  TACSI_PILLARS,
  assertPublicationRandomSource,
  clampScore,
  cohortBand,
  cryptoRandomSource,
  defineMethodology,
  getMethodology,
  meanOnGrid,
  noisyMean,
  perturbCell,
  perturbStatistic,
  sampleDiscreteLaplace,
  seededRandomSource,
  type EntityScores,
} from '../../src/tacsi/privacy/index.ts';

const m1 = getMethodology('tacsi-m1');

/** True when x is an integer number of hundredths (the tacsi-m1 grid), allowing for binary rounding. */
const onGrid = (x: number) => Math.abs(x * 100 - Math.round(x * 100)) < 1e-9;

describe('clampScore', () => {
  it('clamps to [0, 100] and refuses non-finite scores', () => {
    expect(clampScore(-5)).toBe(0);
    expect(clampScore(0)).toBe(0);
    expect(clampScore(42.5)).toBe(42.5);
    expect(clampScore(100)).toBe(100);
    expect(clampScore(100.01)).toBe(100);
    expect(() => clampScore(Number.NaN)).toThrow(RangeError);
    expect(() => clampScore(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('cohortBand', () => {
  it.each([
    [0, null],
    [49, null],
    [50, 'n >= 50'],
    [99, 'n >= 50'],
    [100, 'n >= 100'],
    [249, 'n >= 100'],
    [250, 'n >= 250'],
    [499, 'n >= 250'],
    [500, 'n >= 500'],
    [999, 'n >= 500'],
    [1000, 'n >= 1000'],
    [250_000, 'n >= 1000'],
  ])('n = %i -> %s', (n, band) => {
    expect(cohortBand(n)).toBe(band);
  });

  it('refuses sizes that are not counts', () => {
    expect(() => cohortBand(-1)).toThrow(RangeError);
    expect(() => cohortBand(50.5)).toThrow(RangeError);
  });
});

describe('methodology tacsi-m1', () => {
  it('is registered under its own label and unknown labels are refused', () => {
    expect(METHODOLOGIES['tacsi-m1']).toBe(m1);
    expect(m1.version).toBe('tacsi-m1');
    expect(() => getMethodology('tacsi-m0')).toThrow(RangeError);
    expect(() => getMethodology('toString')).toThrow(RangeError);
  });

  it('calibrates noise to range / minCohort and splits epsilon evenly over the six statistics', () => {
    expect(m1.minCohort).toBe(50);
    expect(m1.sensitivity).toBe(100 / 50);
    expect(m1.statisticsPerCell).toBe(1 + TACSI_PILLARS.length);
    expect(m1.epsilonPerCell).toBe(m1.epsilonPerStatistic * m1.statisticsPerCell);
    expect(m1.noiseScale).toBe(m1.sensitivity / m1.epsilonPerStatistic);
    const { numerator, denominator } = m1.noiseScaleGridUnits;
    expect(Number.isInteger(numerator) && Number.isInteger(denominator)).toBe(true);
    expect((numerator / denominator) * m1.gridStep).toBeCloseTo(m1.noiseScale, 12);
  });

  it('reports the smallest grid half-width holding 95% of the exact discrete-Laplace noise', () => {
    const b = m1.noiseScaleGridUnits.numerator / m1.noiseScaleGridUnits.denominator;
    const q = Math.exp(-1 / b);
    const inside = (k: number) => 1 - (2 * q ** (k + 1)) / (1 + q);
    const k = Math.round(m1.ci95HalfWidth / m1.gridStep);
    expect(inside(k)).toBeGreaterThanOrEqual(0.95);
    expect(inside(k - 1)).toBeLessThan(0.95);
  });

  it('sizes the annual cap to the busiest rolling 365-day window of the real calendar', () => {
    // Walk real windows over several years with weekly cells ending on Sundays: the busiest window
    // must fit the cap exactly, one sector and the headline each publishing weekly and daily.
    let busiest = 0;
    const day = 86_400_000;
    for (let end = Date.UTC(2024, 0, 1); end < Date.UTC(2028, 0, 1); end += day) {
      let weekly = 0;
      let daily = 0;
      for (let d = end - 364 * day; d <= end; d += day) {
        daily += 1;
        if (new Date(d).getUTCDay() === 0) weekly += 1;
      }
      busiest = Math.max(busiest, 2 * (weekly + daily));
    }
    expect(m1.cellsPerEntityPerWindow).toBe(busiest);
    expect(m1.annualCapPerEntity).toBe(busiest * m1.epsilonPerCell);
    expect(m1.annualZcdp.epsilon).toBeLessThan(m1.annualCapPerEntity);
  });

  it('keeps the sampler scale an exact rational for other parameters', () => {
    const m = defineMethodology({
      version: 'test',
      epsilonPerStatistic: [3, 7],
      gridStep: [1, 20],
      cadences: ['weekly'],
    });
    // b = 2 / (3/7) = 14/3 index points = 280/3 grid units of 1/20.
    expect(m.noiseScaleGridUnits).toEqual({ numerator: 280, denominator: 3 });
    expect(m.periodsPerWindow).toEqual({ weekly: 53, daily: 0 });
    expect(m.annualCapPerEntity).toBeCloseTo(2 * 53 * 6 * (3 / 7), 9);
    expect(() =>
      defineMethodology({
        version: 'bad',
        epsilonPerStatistic: [1, 1],
        gridStep: [3, 1],
        cadences: ['daily'],
      }),
    ).toThrow(RangeError);
    expect(() =>
      defineMethodology({
        version: 'bad',
        epsilonPerStatistic: [0, 1],
        gridStep: [1, 100],
        cadences: ['daily'],
      }),
    ).toThrow(RangeError);
  });
});

describe('meanOnGrid', () => {
  it('averages clamped values exactly and rounds half up on the grid', () => {
    const values = [...new Array<number>(49).fill(10), 10.25];
    // sum = 49 * 1000 + 1025 = 50025 hundredths; / 50 = 1000.5 -> 1001.
    expect(meanOnGrid(values, m1)).toBe(1001n);
    expect(meanOnGrid([...new Array<number>(49).fill(-30), 130], m1)).toBe(200n);
    expect(() => meanOnGrid(new Array<number>(49).fill(50), m1)).toThrow(RangeError);
  });

  it('moves by at most the calibrated sensitivity when one entity is replaced', () => {
    const sensitivityUnits = BigInt(Math.round(m1.sensitivity / m1.gridStep));
    const score = fc.double({ min: -20, max: 120, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(score, { minLength: 50, maxLength: 150 }),
        fc.nat(),
        score,
        (values, index, replacement) => {
          const neighbour = [...values];
          neighbour[index % values.length] = replacement;
          const diff = meanOnGrid(values, m1) - meanOnGrid(neighbour, m1);
          return (diff < 0n ? -diff : diff) <= sensitivityUnits;
        },
      ),
      { numRuns: 500 },
    );
    // The bound is attained: 50 zeros against 49 zeros and one 100.
    const zeros = new Array<number>(50).fill(0);
    expect(meanOnGrid([...zeros.slice(1), 100], m1) - meanOnGrid(zeros, m1)).toBe(sensitivityUnits);
  });
});

describe('perturbation', () => {
  it('adds centred noise of the documented spread and publishes on the grid within [0, 100]', () => {
    const rng = seededRandomSource('perturb');
    const N = 20_000;
    let sum = 0;
    let inside = 0;
    for (let i = 0; i < N; i++) {
      const v = perturbStatistic(50, m1, rng);
      expect(onGrid(v)).toBe(true);
      sum += v;
      if (Math.abs(v - 50) <= m1.ci95HalfWidth + 1e-9) inside += 1;
    }
    expect(Math.abs(sum / N - 50)).toBeLessThan(5 * Math.sqrt((2 * m1.noiseScale ** 2) / N));
    expect(Math.abs(inside / N - 0.95)).toBeLessThan(5 * Math.sqrt((0.95 * 0.05) / N));
  });

  it('clamps the published value to the score range (post-processing)', () => {
    const rng = seededRandomSource('edges');
    const low = Array.from({ length: 2000 }, () => perturbStatistic(0, m1, rng));
    const high = Array.from({ length: 2000 }, () => perturbStatistic(150, m1, rng));
    expect(Math.min(...low)).toBe(0);
    expect(Math.max(...high)).toBe(100);
    // Roughly half the draws would fall outside and are pulled onto the bound.
    expect(low.filter((v) => v === 0).length).toBeGreaterThan(800);
    expect(high.every((v) => v <= 100 && v > 80)).toBe(true);
  });

  it('noisyMean is the exact grid mean plus one discrete Laplace draw', () => {
    const values = Array.from({ length: 73 }, (_, i) => (i * 37) % 101);
    const expected = meanOnGrid(values, m1) + sampleDiscreteLaplace(200n, 1n, seededRandomSource('nm'));
    expect(noisyMean(values, m1, seededRandomSource('nm'))).toBe(Number(expected) / 100);
  });
});

describe('perturbCell', () => {
  const entity = (i: number, value = 60): EntityScores => ({
    entityId: `e${i}`,
    indexValue: value,
    pillars: { presence: value, reach: value, impact: value, sentiment: value, momentum: value },
  });

  it('publishes nothing below the minimum cohort', () => {
    const rng = seededRandomSource('cell');
    expect(perturbCell([], m1, rng)).toBeNull();
    expect(
      perturbCell(
        Array.from({ length: 49 }, (_, i) => entity(i)),
        m1,
        rng,
      ),
    ).toBeNull();
  });

  it('perturbs each of the six statistics with fresh noise and labels band and methodology', () => {
    const cell = perturbCell(
      Array.from({ length: 120 }, (_, i) => entity(i)),
      m1,
      seededRandomSource('cell'),
    );
    expect(cell).not.toBeNull();
    expect(cell!.cohortBand).toBe('n >= 100');
    expect(cell!.methodologyVersion).toBe('tacsi-m1');
    const values = [cell!.indexValue, ...TACSI_PILLARS.map((p) => cell!.pillars[p])];
    expect(values.every(onGrid)).toBe(true);
    expect(values.every((v) => v >= 0 && v <= 100)).toBe(true);
    // Identical true means, independent noise: six equal outputs would mean shared noise.
    expect(new Set(values).size).toBeGreaterThan(1);
  });

  it('refuses an entity contributing twice to one cell', () => {
    const rows = Array.from({ length: 60 }, (_, i) => entity(i));
    rows.push(entity(3));
    expect(() => perturbCell(rows, m1, seededRandomSource('dup'))).toThrow(/twice/);
  });

  it('publication accepts only the cryptographic source', () => {
    expect(() => assertPublicationRandomSource(seededRandomSource('x'))).toThrow();
    expect(() => assertPublicationRandomSource(cryptoRandomSource())).not.toThrow();
  });
});
