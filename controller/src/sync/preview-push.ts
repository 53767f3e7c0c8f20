// Runs the pending-host preview (pending-preview.ts) at the start of a sync
// that carries object changes, before the build of the whole model: the
// backends of the new hosts, then the pending set with them. Anything it
// cannot preview is left to the full build right after, as before; a push
// that fails costs the preview only (the backends' state counts as lost, so
// the full push after it sends everything again).
import { toDynamicBackend } from '../diff/decide.ts';
import type { BuildResult, Model, Snapshot } from '../model/types.ts';
import type { DynamicPusher } from './dynamic-push.ts';
import { addedIngresses, previewPending } from './pending-preview.ts';
import type { PendingPush } from './pending-push.ts';
import type { DataplaneControl, SyncDetail, SyncOptions } from './sync-types.ts';

export interface PreviewPushOptions {
  /** Builds the model of a snapshot on its own (a builder apart from the sync's); absent: no preview. */
  readonly build: ((snapshot: Snapshot) => BuildResult) | undefined;
  readonly dataplane: DataplaneControl;
  readonly pusher: DynamicPusher;
  readonly pendingPush: PendingPush;
  /**
   * The configuration NGINX confirmed, the one it runs or reloads to, and the last full build's (which may be
   * newer still: a change waiting out its settle window); null before the first.
   */
  readonly running: () => Model | null;
  readonly target: () => Model | null;
  readonly built: () => Model | null;
  /** True while a refused reload holds every new host back (sync.ts). */
  readonly refused: () => boolean;
  readonly logger: SyncOptions['logger'];
  readonly now: () => number;
}

/** `(before, after, detail)`: previews what `after` adds to the last full build's snapshot `before`. */
export type PreviewPush = (before: Snapshot | null, after: Snapshot, detail: SyncDetail) => Promise<void>;

export function createPreviewPush(options: PreviewPushOptions): PreviewPush {
  const { build, dataplane, pusher, pendingPush, logger, now } = options;
  return async (before, after, detail) => {
    if (build === undefined || dataplane.patchBackends === undefined || before === null || !dataplane.started() || options.refused()) return;
    const running = options.running();
    const target = options.target();
    const built = options.built();
    const lua = pusher.held();
    const held = pendingPush.current();
    if (running === null || target === null || built === null || lua === null || held === null || pusher.lost()) return;
    const started = now();
    const added = addedIngresses(before, after);
    if (added === null) return;
    let preview;
    try {
      preview = previewPending(running, [target, built], build({ ...after, ingresses: added }).model, held, lua);
    } catch (err) {
      // Never the sync's failure: the full build right after meets the same objects and reports them.
      logger.warn({ err }, 'pending hosts not previewed');
      return;
    }
    if (preview === null) return;
    const previewed = now();
    if (preview.backends.length > 0) {
      try {
        // Stored is enough: workers apply the backends before the pending hosts of a later version
        // (worker.lua), and the pending push below waits until every worker holds that version.
        await dataplane.patchBackends({ set: preview.backends.map(toDynamicBackend), remove: [] }, { stored: true });
      } catch (err) {
        pusher.reset(); // unknown: the sync's push sends the full set
        logger.warn({ err, hosts: preview.hosts }, 'backends of new hosts not pushed ahead: they wait for the sync\'s build');
        return;
      }
      pusher.adopt(preview.backends);
    }
    const pushed = now();
    const timing = await pendingPush.push(preview.pending);
    if (timing !== null) {
      detail.preview = preview.hosts.length;
      detail.previewMs = now() - started;
      detail.previewBuildMs = previewed - started;
      detail.previewBackendsMs = pushed - previewed;
      detail.pendingPostMs = timing.postMs;
      detail.pendingWorkersMs = timing.workersMs;
    }
  };
}
