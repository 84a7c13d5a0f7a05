/** How much of the dashboard's two-column grid a panel spans. */
export function PanelWidthField({ value, onChange }: { value: 1 | 2; onChange: (width: 1 | 2) => void }) {
  return (
    <label className="field">
      <span>Width</span>
      <select value={value} onChange={(event) => onChange(Number(event.target.value) === 2 ? 2 : 1)}>
        <option value={1}>Half the dashboard</option>
        <option value={2}>The whole width</option>
      </select>
    </label>
  );
}
