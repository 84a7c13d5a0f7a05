import type { AnalyticsStore } from '@tlm/analytics-store';
import { runQuery, type Guard, type QueryAnswer } from '@tlm/gql';
import { spokenValue } from './compose';

/** A chat question about one issue ("why is issue 12 happening") or one release ("what changed in release 1.2"). */
export type IssueQuestion = { kind: 'issue'; shortId: number } | { kind: 'release'; name: string };

/** A query the chat ran, with its rows: what the stream sends as a `query` event. */
export interface RanQuery {
  gql: string;
  data: QueryAnswer['data'];
}

/** What the chat answers such a question with: a reply stating what was found, and the queries that found it. */
export interface IssueAnswer {
  reply: string;
  ran: RanQuery[];
}

const ISSUE = /\bissue\s*#?\s*(\d{1,15})\b/i;
const RELEASE = /\b(?:release|version)\s+v?([\w@+-]*\d[\w.@+-]*)/i;
/** A release question asks what changed; "how many errors in release 1.2" is a count the translator answers. */
const CHANGE = /\b(?:chang\w*|new|different|differ\w*|broke|break\w*|wrong|happened|compare\w*|regress\w*|introduc\w*|bring|brought)\b/i;

/** The issue or release a message asks about, or undefined when it asks about neither. */
export function issueQuestion(message: string): IssueQuestion | undefined {
  const issue = ISSUE.exec(message);
  if (issue) return { kind: 'issue', shortId: Number(issue[1]) };
  const release = RELEASE.exec(message);
  if (release && CHANGE.test(message)) return { kind: 'release', name: release[1]!.replace(/[.]+$/, '') };
  return undefined;
}

/** A value for a GQL condition, quoted so that any text reads back as itself. */
const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const ANY_STATUS = 'status:[unresolved, resolved, ignored, regressed]';
const count = (value: unknown) => Number(value ?? 0).toLocaleString('en-US');
const plural = (value: unknown, word: string) => `${count(value)} ${word}${Number(value) === 1 ? '' : 's'}`;

interface Frame {
  function?: string | null;
  filename?: string | null;
  module?: string | null;
  lineno?: number | null;
  in_app?: boolean;
}

interface Breadcrumb {
  category?: string | null;
  message?: string | null;
  type?: string | null;
}

/** Where an event was raised: its innermost frame of the application's code (frames run outermost first), else its innermost. */
function raisedAt(frames: Frame[]): string | undefined {
  const frame = [...frames].reverse().find((candidate) => candidate.in_app) ?? frames.at(-1);
  if (!frame) return undefined;
  const file = frame.filename ?? frame.module;
  const where = file ? `${file}${frame.lineno ? `:${frame.lineno}` : ''}` : undefined;
  return [frame.function, where && (frame.function ? `(${where})` : where)].filter(Boolean).join(' ') || undefined;
}

/** The last breadcrumbs before an event, oldest first, as "category: message". */
function trail(breadcrumbs: Breadcrumb[], last = 3): string[] {
  return breadcrumbs
    .slice(-last)
    .map((crumb) => [crumb.category ?? crumb.type, crumb.message].filter(Boolean).join(': '))
    .filter((text) => text.length > 0);
}

type Run = (gql: string) => Promise<QueryAnswer['data']>;

const releaseCounts = (rows: Record<string, unknown>[]) => rows.map((row) => `${String(row['release'])}: ${count(row['value'])}`).join(', ');

/** The issue with its numbers, its latest event's exception, stack and breadcrumbs, and its events per release. */
async function answerIssue(run: Run, shortId: number, timeZone: string | undefined): Promise<string> {
  const issueQuery = `from:issues short_id:${shortId} ${ANY_STATUS} | limit 1`;
  const [issue] = (await run(issueQuery)).results;
  if (!issue) return `This project has no issue ${shortId}.`;
  const id = quoted(String(issue['id']));
  const eventQuery = `from:errors issue_id:${id} | sort timestamp desc | fields timestamp, type, value, release, environment, frames, breadcrumbs | limit 1`;
  const releasesQuery = `from:errors issue_id:${id} release:* | count by release | top 5`;
  const [event] = (await run(eventQuery)).results;
  const releases = (await run(releasesQuery)).results;
  const sentences = [
    `Issue ${shortId}, "${String(issue['title'])}"${issue['culprit'] ? ` in ${String(issue['culprit'])}` : ''}, is ${String(issue['status'])}: ${plural(issue['event_count'], 'event')} from ${plural(issue['user_count'], 'user')}, first seen ${spokenValue(issue['first_seen'], timeZone)}, last seen ${spokenValue(issue['last_seen'], timeZone)}.`,
  ];
  if (event) {
    const context = [event['release'] ? `release ${String(event['release'])}` : '', event['environment'] ? String(event['environment']) : ''].filter(Boolean).join(', ');
    const where = raisedAt(Array.isArray(event['frames']) ? (event['frames'] as Frame[]) : []);
    sentences.push(
      `Its latest event, at ${spokenValue(event['timestamp'], timeZone)}${context ? ` (${context})` : ''}, raised ${String(event['type'])}: ${String(event['value'])}${where ? ` in ${where}` : ''}.`,
    );
    const before = trail(Array.isArray(event['breadcrumbs']) ? (event['breadcrumbs'] as Breadcrumb[]) : []);
    if (before.length > 0) sentences.push(`Just before it: ${before.join('; ')}.`);
  }
  if (releases.length > 0) sentences.push(`Events by release: ${releaseCounts(releases)}.`);
  return sentences.join(' ');
}

/** Which stored release a name means: the same, else one whose version is the name ("1.2" is "web@1.2"). */
function releaseNamed(releases: string[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return (
    releases.find((release) => release.toLowerCase() === lower) ??
    releases.find((release) => release.toLowerCase().replace(/^.*@/, '').replace(/^v/, '') === lower.replace(/^v/, '')) ??
    releases.find((release) => new RegExp(`(?:^|[@/ v])${lower.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:$|[.+-])`).test(release.toLowerCase()))
  );
}

/** A release's error count beside the other releases', the issues first seen in it, and its errors by type. */
async function answerRelease(run: Run, name: string): Promise<string> {
  const countsQuery = 'from:errors release:* | count by release | top 50';
  const counts = (await run(countsQuery)).results;
  const release = releaseNamed(counts.map((row) => String(row['release'])), name);
  if (!release) {
    const known = counts.length > 0 ? ` Releases with errors: ${releaseCounts(counts.slice(0, 5))}.` : '';
    return `No errors were recorded in release ${name}.${known}`;
  }
  const newQuery = `from:issues release_first:${quoted(release)} ${ANY_STATUS} | sort event_count desc | limit 5`;
  const typesQuery = `from:errors release:${quoted(release)} | count by type | top 5`;
  const fresh = (await run(newQuery)).results;
  const types = (await run(typesQuery)).results;
  const own = counts.find((row) => String(row['release']) === release)!;
  const others = counts.filter((row) => row !== own).slice(0, 5);
  const sentences = [`Release ${release} has ${plural(own['value'], 'error')}${others.length > 0 ? ` (other releases: ${releaseCounts(others)})` : ''}.`];
  sentences.push(
    fresh.length > 0
      ? `Issues first seen in it: ${fresh.map((issue) => `issue ${String(issue['short_id'])} "${String(issue['title'])}" (${plural(issue['event_count'], 'event')})`).join('; ')}.`
      : 'No issue was first seen in it.',
  );
  if (types.length > 0) sentences.push(`Its errors by type: ${types.map((row) => `${spokenValue(row['type'])} ${count(row['value'])}`).join(', ')}.`);
  return sentences.join(' ');
}

/** Answers a question about an issue or a release from the stored errors and issues, naming the queries it ran. */
export async function answerIssueQuestion(store: AnalyticsStore, guard: Guard, question: IssueQuestion, timeZone?: string): Promise<IssueAnswer> {
  const ran: RanQuery[] = [];
  const run: Run = async (gql) => {
    const { data } = await runQuery(store, gql, guard);
    ran.push({ gql, data });
    return data;
  };
  const reply = question.kind === 'issue' ? await answerIssue(run, question.shortId, timeZone) : await answerRelease(run, question.name);
  return { reply: `${reply} (${ran.map((query) => query.gql).join('; ')})`, ran };
}
