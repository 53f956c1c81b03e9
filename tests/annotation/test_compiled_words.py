"""A compiled shape's constant words (a status, a kind) go into its text as literals, so that
a plan PostgreSQL keeps for it can use the partial indexes named by them; the call's values
and every other constant stay parameters (``config.compiled``), the call's values
behind a scalar subquery where they are hidden from the planner (``rows_one_plan``)."""

from config.compiled import _words_written


def test_constant_words_are_written_in_and_values_stay_parameters():
    sql = 'SELECT 1 WHERE "status" = %s AND "expert_id" = %s AND "kind" IN (%s, %s) AND "n" = %s'
    params = ("leased", -1, "rating", "a'b", 7)
    slots = (None, "expert_id", None, None, None)
    assert _words_written(sql, params, slots) == (
        """SELECT 1 WHERE "status" = 'leased' AND "expert_id" = %s AND "kind" IN ('rating', %s) """
        """AND "n" = %s""",
        (-1, "a'b", 7),
        ("expert_id", None, None),
    )


def test_a_call_value_that_looks_like_a_word_stays_a_parameter():
    assert _words_written('WHERE "name" = %s', ("study",), ("name",)) == (
        'WHERE "name" = %s',
        ("study",),
        ("name",),
    )


def test_an_escaped_percent_is_not_a_placeholder():
    sql = 'WHERE "note" LIKE \'%%s\' AND "status" = %s'
    assert _words_written(sql, ("leased",), (None,)) == (
        "WHERE \"note\" LIKE '%%s' AND \"status\" = 'leased'",
        (),
        (),
    )


def test_hidden_values_go_behind_a_scalar_subquery_and_constants_do_not():
    sql = 'WHERE "pool_id" = %s AND "status" = %s AND "id" >= %s AND "n" < %s'
    params = (-1, "leased", -2, 3)
    slots = ("pool_id", None, "pivot", None)
    assert _words_written(sql, params, slots, hide_values=True) == (
        """WHERE "pool_id" = (SELECT %s) AND "status" = 'leased' AND "id" >= (SELECT %s) """
        """AND "n" < %s""",
        (-1, -2, 3),
        ("pool_id", "pivot", None),
    )
