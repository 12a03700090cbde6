// Every page of a paged list (AIP-158): the console shows whole lists (a task's history, its
// attempts), so it follows next_page_token until the last page.

export interface ListPage<T> {
  readonly items: T[];
  readonly nextPageToken: string;
}

export async function allPages<T>(read: (pageToken: string) => Promise<ListPage<T>>): Promise<T[]> {
  const all: T[] = [];
  let pageToken = "";
  do {
    const page = await read(pageToken);
    all.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}
