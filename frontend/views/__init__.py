"""Every web page of the platform, one module per area: the expert's pages (``expert``,
``review``, ``adjudication``, ``knowledge``), the leaderboard, and the staff pages under
/admin/ (``dashboard``, ``study_report``, ``admin_leaderboard``). The URLs are in
``frontend.urls`` and ``frontend.urls_admin``."""
