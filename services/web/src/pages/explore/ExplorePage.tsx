export default function ExplorePage() {
  return <h1>ExplorePage</h1>;
}
