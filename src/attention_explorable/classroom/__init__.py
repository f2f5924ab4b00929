"""The class: students' predictions collected live, an instructor's view that reveals them.

Students open ``/steps?room=CODE`` (or ``/textbook?room=CODE``); when they
press "演示本步" (or "提交预测") their prediction for the current step is
stored, one per student per step per round, and the page confirms "已提交".
The instructor logs in at ``/instructor`` with the instructor secret, starts a
room, shows its code, join URL and QR code, watches the count and the
histogram of the predictions and reveals the answer.

Modules
-------
store       SQLAlchemy 2 tables and every query (SQLite by default, PostgreSQL)
context     what one server's class shares (database, secret, URLs, caps); the instructor's cookie
network     the LAN addresses students can reach
stats       the histogram and the spread shown to the instructor
questions   what a room can be asked: the three steps and the text's checked exercises
channel     the class socket (/class/socket): join, submit -> receipt, the room's news
instructor  the instructor's page
handlers    the login form's POST, the CSV export (tornado handlers)
limits      the caps on connections per client

The student's side in the page is the steps explorable's class panel
(``explorables/class_panel.py``, ``web/classroom.js``).

Shared state goes through the database only (docs/architecture.md, "The class"):
several server processes or machines share a room by sharing the database.
"""
