export default function KeysPage() {
  return <h1>KeysPage</h1>;
}
