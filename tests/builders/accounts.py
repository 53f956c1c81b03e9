"""Users and experts (factory_boy), and the password they sign in with."""

import factory
from django.contrib.auth import get_user_model

from annotation.models import Expert

PASSWORD = "test-password-123"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class ExpertFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Expert

    user = factory.SubFactory(UserFactory)
    display_name = factory.LazyAttribute(lambda e: e.user.username)
    languages = factory.LazyFunction(lambda: ["zh"])
