import { Fragment } from 'react';
import { wordSegments } from './wordBreaks';

/** Text whose words longer than `longest` characters may break at their natural places (wordSegments), with <wbr>. */
export function BreakableText({ text, longest = 20 }: { text: string; longest?: number }) {
  return (
    <>
      {text.split(/(\s+)/).map((word, index) =>
        word.length > longest ? (
          <Fragment key={index}>
            {wordSegments(word, longest).map((segment, at) => (
              <Fragment key={at}>
                {at > 0 ? <wbr /> : null}
                {segment}
              </Fragment>
            ))}
          </Fragment>
        ) : (
          word
        ),
      )}
    </>
  );
}
