"""The demo's bundled clips (`<game>.mp4` with `<game>.json` manifests), made by
`datasets.demo_clips`; a package only so that installs carry the files."""
