export default function UsagePage() {
  return <h1>UsagePage</h1>;
}
