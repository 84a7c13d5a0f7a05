import { ArtifactIndex, candidateNames } from './names';

describe('candidateNames', () => {
  it('looks for the full URL, then ~ and the path, each also with .map, without query or fragment', () => {
    expect(candidateNames('https://shop.example.com/static/js/app.min.js?v=3#top')).toEqual([
      'https://shop.example.com/static/js/app.min.js',
      'https://shop.example.com/static/js/app.min.js.map',
      '~/static/js/app.min.js',
      '~/static/js/app.min.js.map',
    ]);
  });

  it('treats app:// and file:// URLs and absolute paths like any host', () => {
    expect(candidateNames('app:///dist/server.js')).toContain('~/dist/server.js');
    expect(candidateNames('file:///srv/dist/server.js')).toContain('~/srv/dist/server.js');
    expect(candidateNames('/srv/dist/server.js')).toEqual(['/srv/dist/server.js', '/srv/dist/server.js.map', '~/srv/dist/server.js', '~/srv/dist/server.js.map']);
  });

  it('has no ~ name for a file with no path', () => {
    expect(candidateNames('<anonymous>')).toEqual(['<anonymous>', '<anonymous>.map']);
    expect(candidateNames('https://shop.example.com')).toEqual(['https://shop.example.com', 'https://shop.example.com.map']);
  });
});

describe('ArtifactIndex', () => {
  const index = new ArtifactIndex([
    { id: 'tilde', name: '~/static/js/app.min.js' },
    { id: 'full', name: 'https://cdn.example.com/static/js/vendor.min.js' },
    { id: 'map-name', name: '~/static/js/chunk-42.js.map' },
    { id: 'bare', name: 'widget.min.js.map' },
    { id: 'twin-1', name: '~/a/shared.js.map' },
    { id: 'twin-2', name: '~/b/shared.js.map' },
  ]);

  it.each([
    ['https://shop.example.com/static/js/app.min.js', 'tilde'],
    ['http://localhost:3000/static/js/app.min.js?build=7', 'tilde'],
    ['https://cdn.example.com/static/js/vendor.min.js', 'full'],
    ['https://shop.example.com/static/js/chunk-42.js', 'map-name'],
    ['https://shop.example.com/assets/widget.min.js', 'bare'],
  ])('serves %s with %s', (file, id) => {
    expect(index.find(file)?.id).toBe(id);
  });

  it.each([
    ['a full URL on another host', 'https://other.example.com/static/js/vendor.min.js'],
    ['another path', 'https://shop.example.com/legacy/app.js'],
    ['a base name two artifacts share', 'https://shop.example.com/c/shared.js'],
  ])('serves nothing for %s', (_label, file) => {
    expect(index.find(file)).toBeUndefined();
  });

  it('serves a shared base name by its exact path', () => {
    expect(index.find('https://shop.example.com/b/shared.js')?.id).toBe('twin-2');
  });
});
