// A dataset row's own images (`"images": ["cat.png"]`): read once, at init, from files next to
// the dataset (k6 reads binary files only in init, with open(path, 'b')), each file once however
// many rows name it, and kept base64 with the row. The media type comes from the file's first
// bytes, never its name; a file that is no PNG, JPEG, GIF or WebP stops the run with one line.
import type { ImageInput } from '../dialects/types';
import { DatasetError, type Dataset } from './format';

/** The media type from a file's magic bytes; null when it is none of the four. */
export function sniffImage(b: Uint8Array): string | null {
  const at = (i: number, s: string) => [...s].every((c, k) => b[i + k] === c.charCodeAt(0));
  if (b.length >= 8 && b[0] === 0x89 && at(1, 'PNG')) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (at(0, 'GIF8')) return 'image/gif';
  if (b.length >= 12 && at(0, 'RIFF') && at(8, 'WEBP')) return 'image/webp';
  return null;
}

/** A PNG's size from its IHDR; 0 × 0 for the other types (nothing here reads their headers). */
function sizeOf(b: Uint8Array, type: string): { width: number; height: number } {
  if (type !== 'image/png' || b.length < 24) return { width: 0, height: 0 };
  const u32 = (i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
  return { width: u32(16), height: u32(20) };
}

/** Where a row's file is: as given when absolute, else beside the dataset file. */
export function imagePath(datasetPath: string, file: string): string {
  if (file.startsWith('/')) return file;
  const slash = datasetPath.lastIndexOf('/');
  return slash < 0 ? file : `${datasetPath.slice(0, slash + 1)}${file}`;
}

/** Reads every row's images into the row (`images`); returns how many rows have some. Throws DatasetError. */
export function readRowImages(ds: Dataset, datasetPath: string, readBinary: (path: string) => Uint8Array, base64: (b: Uint8Array) => string): number {
  const read = new Map<string, ImageInput>();
  let rows = 0;
  for (const it of ds.items) {
    if (it.imageFiles === undefined) continue;
    rows++;
    it.images = it.imageFiles.map((file) => {
      const path = imagePath(datasetPath, file);
      let img = read.get(path);
      if (img === undefined) {
        let bytes: Uint8Array;
        try {
          bytes = readBinary(path);
        } catch (e) {
          throw new DatasetError(`${ds.source}: row ${it.id}: cannot read image ${path} (relative names are beside the dataset file): ${String(e)}`);
        }
        const type = sniffImage(bytes);
        if (type === null) throw new DatasetError(`${ds.source}: row ${it.id}: ${path} is not a PNG, JPEG, GIF or WebP image (by its first bytes)`);
        img = { mediaType: type, data: base64(bytes), ...sizeOf(bytes, type) };
        read.set(path, img);
      }
      return img;
    });
  }
  return rows;
}
