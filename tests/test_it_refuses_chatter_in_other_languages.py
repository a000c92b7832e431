"""Chatter in German, Spanish, French, Portuguese, Italian, Dutch, Swedish, Polish, Turkish, Japanese, Korean, Russian
and Chinese is refused as it is in English, and facts in those languages are kept, however they open."""

from __future__ import annotations

import pytest

from memoryhub.writes.noise import noise_reason


@pytest.mark.parametrize(
    "text",
    [
        "¡Muchas gracias, me has salvado el día!",
        "Kein Problem, gern geschehen!",
        "Scusa, ho sbagliato a copiare il comando.",
        "Quizás el error venga de la versión de Node, pero no lo sé.",
        "Vielleicht liegt es am Proxy? Ich bin mir nicht sicher.",
        "Estoy compilando el proyecto otra vez.",
        "Ich schaue mir jetzt die Logdatei an.",
        "Als Nächstes prüfe ich die Zugverbindungen nach Hamburg.",
        "Je peux aussi te proposer trois variantes du titre, si tu veux.",
        "Riepilogo della sessione: abbiamo sistemato il modulo di login e aggiornato i test.",
        "Sortie de la commande : Permission denied (publickey).",
        "De pipeline draait nog, stap 3 van 5.",
        "Teraz sprawdzam plik konfiguracyjny.",
        "Vänta lite, jag hämtar vädret för helgen.",
        # The agent's step reported done in the first person.
        "J'ai mis à jour le fichier de traductions.",
        "He corregido el test que fallaba en CI.",
        "Reiniciei o contêiner do banco de dados.",
        "Ho aggiornato le dipendenze del frontend.",
        "Ich habe die Konfiguration neu gestartet und geprüft.",
        "Ik heb de README bijgewerkt.",
        # Japanese: courtesy, a guess, the step now, still waiting.
        "承知しました。すぐに対応します。",
        "たぶん設定ファイルの問題かもしれません。",
        "今からログを確認します。",
        "見積もりの件、まだ返事待ちです。",
        # The step in the present, coming back later, still waiting, done in the passive, a short reaction.
        "Je relance le build, ça prend cinq minutes.",
        "Ich schicke dir gleich die Tabelle.",
        "Even kijken waarom de export faalt.",
        "Jag kör migreringen igen.",
        "Sprawdzam, czy backup się wykonał.",
        "Reviso el contrato y luego te aviso.",
        "Ainda à espera do orçamento do pintor.",
        "De planning is bijgewerkt voor morgen.",
        "Perfetto, grazie!",
        "Forse è colpa della cache? Non so.",
        "Ich starte gerade den Server im 3. Stock neu.",
        "Le colis vient d'arriver, je vérifie le contenu.",
        "Nog geen antwoord van de verhuurder.",
        "Zaraz sprawdzę i dam znać.",
        "Väntar fortfarande på fakturan.",
        "明日の会議室を予約しましょうか？",
        # Korean, Russian, Chinese and Turkish turns.
        "네, 지금 바로 로그 확인해볼게요.",
        "Сейчас перезапускаю сервер, подождите минуту.",
        "好的，我先看一下这个问题。",
        "Testler hâlâ çalışıyor, bitince haber veririm.",
        "Ich rufe gleich beim Vermieter an.",
        "Ik bel zo even de garage.",
        "Beleza, vou abrir o chamado daqui a pouco.",
        "Sì, perfetto, grazie mille!",
        # Still under way ("toujours" is "still" here, not "always"), an apology whatever follows, the day's work.
        "La sauvegarde est toujours en cours.",
        "Lo siento, no pude confirmar la cita con el dentista.",
        "Hoje organizamos as fotos da viagem e apagamos as repetidas.",
        "Ich habe die settings.json angepasst und teste gleich nochmal.",
        "デプロイが完了しました！",
        "Estou rodando o backup agora, deve levar uns 20 minutos.",
        "Сборка всё ещё идёт, осталось минут десять.",
        "他に何か質問はありますか？",
    ],
)
def test_chatter_in_other_languages_is_refused(text):
    assert noise_reason(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Wichtig: Die Staging-Datenbank wird jeden Sonntag zurückgesetzt.",
        "Ojo: el token de la API caduca cada 90 días.",
        "À retenir : les déploiements se font uniquement le mardi.",
        "Decidimos usar PostgreSQL porque necesitamos transacciones.",
        "Ik ben allergisch voor noten.",
        "Nigdy nie wdrażamy w piątki.",
        "Jag föredrar korta svar utan emojis.",
        "Gracias a la caché, el endpoint responde en 40 ms.",
        "He cambiado de trabajo: ahora estoy en una consultora de Madrid.",
        "Ich habe zwei Kinder, beide in der Grundschule.",
        # Japanese facts, however few spaces they hold.
        "請求書は毎月末に送ること。",
        "ユーザーはピーナッツアレルギーがあるので、店選びに注意。",
        "本番環境へのデプロイは火曜日と木曜日だけです。",
        "Die Preise wurden 2023 angepasst; alte Angebote gelten bis Jahresende.",
        "El cliente todavía usa Windows 7 en la recepción.",
        "Le serveur de build est en salle B, armoire 3.",
        "배포는 항상 화요일 오전에 합니다.",
        "Мы всегда деплоим по вторникам.",
        "我们每周五下午发布新版本。",
        "家长会的通知请同时发给我和我先生。",  # "我先生" is "my husband", not "我先" ("I'll first")
        "Müşteri verileri asla test ortamına kopyalanmaz.",
    ],
)
def test_facts_in_other_languages_are_kept(text):
    assert noise_reason(text) is None
