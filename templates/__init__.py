"""Package data: every email the judge sends, as Jinja2 templates (installed as
``judge.templates``; read through :func:`judge.resources.template_loader`)."""
