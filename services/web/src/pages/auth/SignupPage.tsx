export default function SignupPage() {
  return <h1>SignupPage</h1>;
}
