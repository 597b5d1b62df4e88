import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite is embedded: two processes opening one data folder corrupt it. A lock file with the
 * owner's pid keeps a second process (a CLI command while the server runs) out, with a message
 * saying why; a lock left by a dead process is taken over.
 */
export class DataDirLockedError extends Error {}

export function lockDataDir(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'brandhealth.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error: any) {
      if (error?.code !== 'EEXIST') throw error;
      const pid = Number(fs.readFileSync(lockPath, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirLockedError(
          `the data folder ${dataDir} is in use by process ${pid}; stop it first (PGlite allows one process), or use DATABASE_URL`,
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: any) {
    return error?.code === 'EPERM';
  }
}

/**
 * Takes group and other permissions off `dir` and everything under it (symbolic links are left
 * alone, never followed): the data folder is the server's alone (docs/operations.md, "Database").
 */
export function makeOwnerOnly(dir: string): void {
  const walk = (target: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(target);
    } catch (error: any) {
      if (error?.code === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) fs.chmodSync(target, stat.mode & 0o700);
    if (stat.isDirectory()) for (const name of fs.readdirSync(target)) walk(path.join(target, name));
  };
  walk(dir);
}
