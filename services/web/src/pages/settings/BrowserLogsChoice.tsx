import { useId, useState, type ReactNode } from 'react';
import type { Project } from '../../api/types';
import { ErrorNotice } from '../../components/States';
import { useUpdateProject } from './hooks';

/** The project's "Allow browser logs" setting as a checkbox that saves on change, described by `hint`. */
export function BrowserLogsChoice({ org, project, hint }: { org: string; project: Project; hint: ReactNode }) {
  const update = useUpdateProject(org, project.id);
  const hintId = useId();
  // The box shows the choice at once (state set in the change event), and the saved value once the change settles.
  const [wanted, setWanted] = useState<boolean>();
  return (
    <>
      <label className="choice">
        <input
          type="checkbox"
          checked={wanted ?? project.allow_browser_logs}
          disabled={update.isPending}
          onChange={(event) => {
            setWanted(event.target.checked);
            update.mutate({ allow_browser_logs: event.target.checked }, { onSettled: () => setWanted(undefined) });
          }}
          aria-describedby={hintId}
        />
        <span>Allow browser logs</span>
      </label>
      <p id={hintId} className="field-hint">
        {hint}
      </p>
      {update.isError ? <ErrorNotice error={update.error} next="Reload the page and try again." /> : null}
    </>
  );
}
