/** The browser's IANA time zone (none where it names none): the days "today" and "this week" of a person are its. */
export const browserTimeZone = (): string | undefined => Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
