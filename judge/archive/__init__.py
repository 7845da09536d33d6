"""The web archive of the games' public mail (issue 27): a static folder of HTML pages, their
pictures and Atom feeds, as a mailing list archives its mail.

* :mod:`judge.archive.store` keeps, in the game's transaction, what an observer is mailed
  (the public report's template and context, the public picture's id, the centre counts and
  the powers' public names) and, after the transaction (off the deadline's path), renders
  its text and takes its picture from the mail that carried it (the same bytes);
* :mod:`judge.archive.pages` renders the pages and feeds from those stored rows alone: a
  pure function of the database, so the pages written after each report
  (:mod:`judge.archive.write`) and ``judge archive --out`` are the same bytes;
* :mod:`judge.archive.web` serves the folder read-only on loopback (``[archive] listen``).
"""
