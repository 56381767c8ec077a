// jest's order of test files, with the cluster test first. jest runs the files it has no duration for largest first,
// then by the durations it recorded; the cluster test (the production shape started once, the longest file) is a small
// file, so on a machine without recorded durations it started late and ran alone at the end of the run (issue 45).
import jestSequencer from '@jest/test-sequencer';

const Sequencer = jestSequencer.default ?? jestSequencer;
const FIRST_PROJECTS = ['cluster'];

export default class ClusterFirst extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const first = (test) => FIRST_PROJECTS.includes(test.context.config.displayName?.name);
    return [...sorted.filter(first), ...sorted.filter((test) => !first(test))];
  }
}
