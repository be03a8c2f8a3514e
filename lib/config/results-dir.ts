// Whether RESULTS_DIR exists, decided before any load: k6 cannot create folders, and a summary
// written into a missing one is lost after the whole run. k6 can only probe a path with open(),
// which fails one way for a folder and another for nothing at all; this reads that failure.

/** The path open() must probe: RESULTS_DIR as the run will write it (relative to the working folder). */
export function resultsDirProbePath(dir: string, workingDir: string | undefined): string | null {
  if (dir.startsWith('/')) return dir;
  if (!workingDir || !workingDir.startsWith('/')) return null; // cannot tell where k6 will write
  return `${workingDir.replace(/\/+$/, '')}/${dir}`;
}

/** From what open(path) did: 'folder' when it is one, 'missing' when nothing is there, else 'unknown'. */
export function resultsDirState(openError: string | null): 'folder' | 'missing' | 'file' | 'unknown' {
  if (openError === null) return 'file';
  if (/can't be used with directories/.test(openError)) return 'folder';
  if (/no such file or directory|cannot find the (file|path)/i.test(openError)) return 'missing';
  return 'unknown';
}
