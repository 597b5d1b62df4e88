import { describe, it, expect } from 'vitest';
describe('runtime', () => {
  it('runs on Node 24', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });
});
