"""The tutoring domain: a Socratic math tutor and a grade-school student.

Importing this package only registers the domain; the factory
(``domain.make_tutoring_domain``) builds it on first use.
"""

from envs.domain import register_domain


def _factory():
    from .domain import make_tutoring_domain

    return make_tutoring_domain()


register_domain("tutoring", _factory, gym_id="Tutoring-v0")
