// The group/check tree of the summary's root_group (lib.GroupSummary, lib/models.go): built from
// the `group` and `check` tags of `checks` and `group_duration` samples. IDs are the MD5 of the
// group or check path, as in k6, so they match between k6 and the double.

import * as crypto from 'node:crypto';
import type { Sample } from '../shared/protocol';

export interface CheckSummary {
  name: string;
  path: string;
  id: string;
  passes: number;
  fails: number;
}

export interface GroupSummary {
  name: string;
  path: string;
  id: string;
  groups: GroupSummary[];
  checks: CheckSummary[];
}

const md5 = (s: string) => crypto.createHash('md5').update(s).digest('hex');

class GroupNode {
  readonly groups = new Map<string, GroupNode>();
  readonly checks = new Map<string, CheckSummary>();
  constructor(
    readonly name: string,
    readonly path: string,
  ) {}

  group(name: string): GroupNode {
    let g = this.groups.get(name);
    if (!g) this.groups.set(name, (g = new GroupNode(name, `${this.path}::${name}`)));
    return g;
  }

  check(name: string): CheckSummary {
    let c = this.checks.get(name);
    if (!c) {
      const path = `${this.path}::${name}`;
      this.checks.set(name, (c = { name, path, id: md5(path), passes: 0, fails: 0 }));
    }
    return c;
  }

  export(): GroupSummary {
    return {
      name: this.name,
      path: this.path,
      id: md5(this.path),
      groups: [...this.groups.values()].map((g) => g.export()),
      checks: [...this.checks.values()].map((c) => ({ ...c })),
    };
  }
}

export class GroupTree {
  private readonly root = new GroupNode('', '');

  ingest(sample: Sample): void {
    if (sample.metric !== 'checks' && sample.metric !== 'group_duration') return;
    const path = sample.tags.group;
    if (path === undefined) return;
    let group = this.root;
    for (const name of path.split('::').slice(1)) group = group.group(name);
    if (sample.metric !== 'checks') return;
    const checkName = sample.tags.check;
    if (checkName === undefined) return;
    const check = group.check(checkName);
    if (sample.value === 0) check.fails++;
    else check.passes++;
  }

  export(): GroupSummary {
    return this.root.export();
  }
}
