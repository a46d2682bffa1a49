"""Making and screening cases: a new project and new cases, the Pipeline panel (specifications,
images, the filtering model) and screening a case or the project again."""
