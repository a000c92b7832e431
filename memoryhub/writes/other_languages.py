"""Chatter in the languages agents and people most often write to the store in besides English: German, Spanish,
French, Portuguese, Italian, Dutch, Swedish, Polish and Turkish, and in Japanese, Korean, Russian and Chinese.

The English rules (`noise`, `chatter`) read sentence shapes; these read the few words by which a turn of a conversation
gives itself away in each language: a greeting, thanks or an apology, a guess said to be one, the step the agent takes
now or next, an offer, a summary of the session, a command's output. A fact in those languages keeps its place: a
text with a mark of a lasting fact (`noise._DURABLE_SIGNAL`, or these languages' "always", "never", "because") is
not read here. Designed on bench/data/dev11_chatter.json (half of it in these languages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_I = re.IGNORECASE

# Marks each reason given here: the chatter head reads the bundled English model's vectors and cannot overturn them.
READ_BY_ITS_WORDS = "known by its words"
_ACK = f"it is an acknowledgement or greeting, not a fact ({READ_BY_ITS_WORDS})"
_THINKING = f"it is thinking aloud, not a fact ({READ_BY_ITS_WORDS}); store the conclusion once you have one"
_STEP = (
    f"it narrates the session ({READ_BY_ITS_WORDS}); store the lasting fact, decision or gotcha instead (true on its "
    "own, for any agent reading it later)"
)
_OFFER = f"it is an acknowledgement or a closing remark, not a fact ({READ_BY_ITS_WORDS})"
_OUTPUT = f"it is command output, not a fact ({READ_BY_ITS_WORDS}); store what the command tells you, in a sentence"

# A lasting fact's own marks: always, never, must, because, from now on. (Not German "nie": in Polish it is "not", and
# opens half its chatter: "Nie ma za co!", "Nie jestem pewien".)
_LASTING = re.compile(
    # ("Toujours en cours" is "still under way", not "always".)
    r"\b(?:siempre|nunca|porque|immer|niemals|weil|muss|toujours(?! (?:en cours|pas|en attente))|jamais|parce que|doit|"
    r"sempre|deve(?! (?:levar|demorar|ficar|estar))|al[ée]rgic[oa]s?|allergisch|allergique|allergic[oa]|uczulon[ya]|"
    r"mai|perché|altijd|nooit|omdat|moet|alltid|aldrig|eftersom|måste|zawsze|nigdy|ponieważ|musi|"
    r"a partir de ahora|ab jetzt|désormais|d'ora in poi|a partir de agora|vanaf nu|från och med nu|od teraz|"
    r"her zaman|asla|çünkü|mutlaka|hamesha|kabhi nahi|kyunki|selalu|jangan pernah|karena|wajib)\b",
    _I,
)
# Greetings, thanks, apologies, "you're welcome", goodbyes: a whole short turn.
_COURTESY = re.compile(
    r"^\W*(?:(?:sì|sí|si|ja|oui|tak|sim)\W+)?"
    r"(?:hola|hallo|hoi|hej|cześć|ciao|olá|ola|bonjour|salut|guten (?:morgen|tag|abend)|buenos días|buongiorno|"
    r"bom dia|god morgon|dzień dobry|goedemorgen|(?:muchas |mil )?gracias|danke|vielen dank|merci|grazie|"
    r"obrigad[oa]|dank je|bedankt|tack|dzięki|dziękuję|de nada|gern geschehen|kein problem|avec plaisir|"
    r"di niente|figurati|imagina|graag gedaan|varsågod|nie ma za co|prego|perdona|perdón|lo siento|"
    r"entschuldigung|désolée?|scusa|scusi|desculp[ae]|förlåt|przepraszam|hasta luego|bonne (?:soirée|journée)|"
    r"buona (?:serata|giornata)|tot ziens|fijne dag|boa noite|tschüss|listo|erledigt|c'est fait|fatto|feito|klaar|"
    r"klart|gotowe|perfetto|perfecto|parfait|perfeito|perfekt|super|génial|genial|qué buena|me alegro|que bom|"
    r"wat een mooie|wat leuk|toll|klasse|świetnie|ça marche|va bene|de acuerdo|vale|okej|oké|prima|teşekkür\w*|"
    r"alles klar|top|dankjewel|muy amable|bom fim de semana|buen fin de semana|schönes wochenende|bon week-end|"
    r"çok teşekkür\w*|terima kasih|shukriya|bahut bahut shukriya|dhanyavaad|theek hai|"
    r"sağ ol|tamam|kusura bakma\w*|c'est noté|qué bien|voilà|que tengas (?:un )?buen día|me alegra|vi hörs|"
    r"momentje|ficou ótimo|claro|rozumím|díky|děkuji|selvä|kiitos|takk|tusen takk|ha en bra helg|qué bonito|"
    r"danke für die geduld|merci pour (?:ta|votre) patience|gracias por (?:tu|su) paciencia|moment bitte)\b",
    _I,
)
# A guess said to be one: "Quizás ... no lo sé", "Vielleicht ...? Ich bin mir nicht sicher", "Chyba ...".
# An apology opens a turn whatever follows it: "Lo siento, no encontré la factura en tu correo".
_APOLOGY = re.compile(
    r"^\W*(?:lo siento|perdón|perdona|(?:je suis )?désolée?|scusa(?:mi)?|mi dispiace|entschuldigung|przepraszam|"
    r"desculp[ae]|förlåt|sorry)\b",
    _I,
)
_GUESS = re.compile(
    r"^\W*(?:(?:m+|hm+|eh|ah|oh|uhm)\W+)?(?:quizás?|tal vez|a lo mejor|sospecho|vielleicht|ich vermute|peut-être|"
    r"j'ai l'impression|forse|immagino|boh|"
    r"talvez|misschien|ik denk dat|kanske|jag gissar|może|chyba|parece que)\b|"
    r"\b(?:no (?:lo )?sé|no estoy segur[oa]|nicht sicher|pas sûr|non ne sono sicur[oa]|não tenho certeza|geen idee|"
    r"niet zeker|jag är osäker|nie jestem pew(?:ien|na)|solo un'ipotesi|tylko przypuszczenie|à vérifier|non so|"
    r"je ne sais pas|ich weiß (?:es )?nicht|não sei|weet ik niet|vet inte|nie wiem|svårt att säga|schwer zu sagen|"
    r"difícil de decir|difficile à dire|difficile dirlo|moeilijk te zeggen|trudno powiedzieć|difícil dizer|sanırım|"
    r"emin değilim|shayad|pakka nahi|mungkin|belum pasti|keine ahnung|mal sehen|vediamo come va|vamos a ver|"
    r"we zien wel|vi får se|zobaczymy|non saprei|bara en gissning|nur eine vermutung|juste une hypothèse|"
    r"solo una suposición|vamos ver|tak tylko myślę|devo verificare|muszę sprawdzić|tengo que verificar|"
    r"je dois vérifier)\b|^\W*(?:à voir|a ver si)\b",
    _I,
)
# The step the agent takes now: a progressive form ("estoy compilando", "sto riavviando", "je suis en train de",
# "ik ben ... aan het updaten"), a first person with "now" ("Ich schaue mir jetzt ...", "Jag tittar ... nu",
# "Teraz sprawdzam"), a moment asked for ("Un momento", "Even geduld"), or the step after ("Als Nächstes prüfe ich").
_NOW = re.compile(
    r"\b(?:estoy|estou|estamos|sto|stiamo|está|sta)\s+\w+(?:ando|endo|indo)\b|\ben train de\b|\baan het \w+en\b|"
    r"\b(?:ich|je|j'|io|eu|ik|jag|yo)\b[^.]{0,40}\b(?:jetzt|gerade|maintenant|tout de suite|adesso|ora|agora|nu|"
    r"ahora)\b|^\W*(?:jetzt|teraz|nu|adesso|właśnie)\s+\w+|"
    r"\b(?:en curso|in corso|pågår|w toku|läuft noch|draait nog|tournent encore|wciąż|ancora in corso|en este "
    r"momento|neste momento|in questo momento|op dit moment|im moment|en ce moment|just nu|ahora mismo|na razie)\b|"
    r"^\W*(?:un momento|un attimo|un instante|só um instante|einen moment|moment,|attends|even geduld|"
    r"chwileczkę|vänta lite)(?!\w)|"
    r"^\W*(?:a continuación|lo siguiente|luego|después|em seguida|als nächstes|ensuite|poi|dopo|hierna|daarna|"
    r"sedan|następnie|potem)\b|^\W*(?:voy a|vou|je vais|ich werde|vado a|ik ga|jag ska)\b|"
    r"\b(?:est|sont) (?:toujours |encore )en cours\b|"
    # The agent's step in the present, a word to say it will come back, still waiting for someone.
    r"(?:^\W*|[,;]\s*)je (?:relance|vérifie|relis|regarde|lance|teste|cherche|prépare|m'occupe|passe à|corrige|"
    r"mets à jour)\b|\bvient d'arriver\b|\bon verra\b|"
    r"\bzo (?:terug|meteen)\b|^\W*nog geen (?:bevestiging|antwoord|reactie|nieuws)\b|^\W*nog even\b|"
    r"\b(?:amanhã|mañana|demain|morgen|domani|jutro|i morgon)\s+(?:às|a las|à|um|alle|om|o|kl\.?)\s*\d|"
    r"\b(?:quase a acabar|casi termino|presque fini|fast fertig|quasi finito|bijna klaar|nästan klar|prawie gotowe|"
    r"só faltam)\b|\b(?:schon wieder|znowu|encore une fois|otra vez|di nuovo)\b|"
    r"\bich (?:teste|probiere|schaue|versuche|checke) (?:mal|kurz)\b|\bte (?:lo|la|los|las) (?:mando|envío|paso)\b|"
    r"\b(?:robię|zaraz|dam znać)\b|\bväntar (?:fortfarande )?på\b|\b(?:hâlâ|şu an|birazdan|haber veririm|"
    r"tekrar deneyeceğim|bakıyorum)\b|\bletar fortfarande\b|\bstehe gerade\b|\b(?:sto ancora|aspettando)\b|"
    r"\b(?:dans un instant|tout à l'heure|on attend|je vous envoie|je t'envoie)\b|\bstraks\b|\bestou a ver\b|"
    r"\b(?:warte noch|ich warte)\b|\b(?:nochmal anschauen|morgen nochmal)\b|\bje (?:renvoie|t'envoie)\b|"
    r"\bjá subi\b|\baguardando\b|\b\w+ę teraz\b|\bnummer \d+ av \d+\b|"
    # Hindi written in Latin letters, Indonesian: "kar raha hoon", "wait kar rahe hain", "masih menunggu", "sedang".
    r"\b(?:kar (?:raha|rahi|rahe) (?:hoon|hun|hain|hai)|raha hoon|rahi hoon|rahe hain|wait kar|abhi bhi|"
    r"dekh (?:raha|rahi) (?:hoon|hun))\b|\b(?:masih menunggu|sedang|lagi (?:baca|cek|cari))\b|"
    # "Now" closing a clause is this moment ("Estou rodando o script agora, deve levar..."); opening one, it may
    # announce a change ("Agora quem cuida do Instagram é a Bia").
    r"\b(?:agora|adesso|sekarang)(?=\s*(?:[,.;!]|$))|^\W*(?:agora|adesso) (?:vou|vado)\b|"
    r"\b(?:rufe|schreibe) (?:dir |ich )?gleich\b|\bmache ich (?:morgen |später )?"
    r"(?:mit \w+ \w+ )?weiter\b|\bzo even\b|\bover een (?:uurtje|minuutje|kwartier)\b|\bstaat nog\b|"
    r"^\W*kollar\b|\bbir saniye\b|\bjeszcze raz\b|\b(?:zrobione|wrzuciłam|wrzuciłem)\b|"
    r"\bte (?:digo algo|confirmo)\b|\bahora lo (?:corrijo|arreglo|miro)\b|\bainda esperando\b|"
    r"\bdaqui a pouco\b|(?:^|,\s*)vou \w+r\b|\bjá (?:reservei|enviei|fiz|mandei)\b|"
    r"^\W*(?:[\w-]+ ){0,2}(?:gestartet|erledigt|hochgeladen|verschickt|abgeschlossen)\W*$|"
    r"\bje reviens vers (?:toi|vous)\b|\b(?:est|sont) en cours\b|\ben cours d'\w+|\bj'attends\b|\ben attente d[ue]\b|"
    r"\b(?:schaue|schicke|mache|prüfe|teste|starte|melde mich)\b[^.]{0,30}\bgleich\b|\b(?:laufen|läuft) noch\b|"
    r"^\W*even (?:kijken|wachten|checken|geduld)\b|\b(?:loopt|lopen|draait|draaien) nog\b|"
    r"^\W*jag (?:kör|kollar|tittar|testar|startar|skickar|fixar)\b|\båterkommer\b|\bväntar på (?:svar|besked)\b|"
    r"\bfortfarande igång\b|\b(?:sprawdzam|testuję|uruchamiam|czekam|patrzę|poprawiam|wysyłam)\b|"
    r"\b(?:te|le) aviso\b|\bluego te (?:digo|cuento)\b|\b(?:tô|estou) esperando\b|\bà espera d[aeo]s?\b|"
    r"\bti (?:faccio sapere|aggiorno)\b|\bin attesa d[ie]\b|"
    r"\b(?:todavía|aún) no ha (?:llegado|respondido|contestado|confirmado)\b|"
    r"\bainda não (?:chegou|respondeu|confirmou)\b|\bnon ha ancora (?:risposto|confermato)\b|"
    r"\bpas encore (?:répondu|confirmé|arrivé)\b|\bdauert noch\b|\bya lo (?:corrijo|arreglo|miro|reviso)\b|"
    r"\bik (?:zoek|kijk|check|test) even\b|\b(?:laadt|wacht|wachten) nog\b|\bstrax\b|\bw połowie\b|"
    r"\bho appena\b|\baspetto ancora\b|\b(?:sigo|todavía|aún) esperando\b|\bich melde mich\b|"
    r"\bhned se na to\b|\btarkistan\b|\bjeg sier ifra\b|\b(?:ještě )?čekám na\b|(?:^|,\s*)even (?:geduld|wachten)\b|"
    r"^\W*(?:ik ben )?(?:nog )?bezig met\b|\bje (?:le|la|les) (?:lis|regarde|fais|envoie|vérifie)\b|"
    r"\bahora (?:genero|hago|reviso|miro|preparo|busco|subo)\b|"
    r"^\W*(?:kurzes update|kleines update|petite mise à jour|actualización rápida|aggiornamento veloce)\b|"
    r"\blo (?:corrijo|arreglo|miro|reviso) ahora\b|\bhåller på att\b|\bszukam\b|"
    r"\bespero (?:la )?(?:confirmación|respuesta)\b|\b(?:todavía|aún) no (?:responde|contesta|llega)\b|"
    r"\barriva (?:tra|fra|entro)\b|^\W*deixa (?:eu|me)\b|\bich (?:prüfe|schaue|teste|suche) noch\b|"
    r"\b(?:nochmal|noch einmal) neu\b|\bich starte\b|\ben un rato\b|"
    r"\b(?:odpalam|wrzucam|instaluję|pobieram|przeglądam)\b|\bjeszcze się\b|\bzostało (?:jakieś |około )?\d+|"
    r"^\W*(?:laddar|kollar|kör|letar|söker|fixar|testar)\b|^\W*jag (?:letar|söker|bokar|laddar)\b|"
    r"^\W*j'(?:ouvre|essaie|installe|exécute|analyse|examine)\b|"
    r"^\W*(?:buscando|revisando|mirando|comprobando|descargando|subiendo|procesando|preparando)\b|"
    r"\b(?:tô|tá|estão)\s+\w+(?:ando|endo|indo)\b|"
    r"\b(?:şimdi|tekrar)\b[^.]{0,40}\w+(?:ıyorum|iyorum|uyorum|üyorum)\b|"
    # The day's work in the first person plural: "Hoje revisamos os capítulos 1 e 2", "Hoy cerramos el ticket".
    r"^\W*(?:hoy|hoje|oggi)\b[^.]{0,15}\b\w+(?:amos|imos|emos|iamo)\b",
    _I,
)
# Work reported done in the passive, undated: "De lijst is bijgewerkt", "Ya está subido", "Foi atualizado". ("Die
# Preise wurden 2023 angepasst" is a fact: `_YEAR`.)
_PASSIVE_DONE = re.compile(
    r"\b(?:is|zijn) (?:net )?(?:bijgewerkt|aangepast|verstuurd|geüpload)\b|"
    r"\b(?:wurde|wurden|ist|sind) (?:gerade |eben )?(?:aktualisiert|angepasst|verschickt|hochgeladen|gepusht)\b|"
    r"\b(?:a|ont) été (?:mis à jour|envoyée?s?|poussée?s?|corrigée?s?)\b|"
    r"\b(?:ha|han) sido (?:actualizad|enviad|subid|corregid)\w*|"
    r"\bya está (?:subido|hecho|listo|enviado|actualizad[oa])\b|"
    r"\bfoi (?:atualizad|enviad|corrigid)\w*|\b(?:è|sono) stat[oaie] (?:aggiornat|inviat|caricat|corrett)\w*",
    _I,
)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# The agent's own step, reported done in the first person: "J'ai corrigé la faute de frappe", "He actualizado el
# archivo", "Atualizei as dependências", "Ho riavviato il server", "Ich habe den Branch gepusht". Only the verbs of a
# session's errands: "He cambiado de trabajo" or "Ich bin nach Berlin gezogen" is a person's fact.
_DONE = re.compile(
    r"^\W*(?:(?:vale|ok|okay|bueno|listo|alors|allora|ecco|also|gut|oké|nou)\W+)?(?:ya |déjà |già |schon |al )?"
    r"(?:(?:j'ai|nous avons|on a) (?:\w+ )?(?:corrigé|mis à jour|ajouté|poussé|relancé|redémarré|vérifié|testé|"
    r"fusionné|commité|rebasé|nettoyé|regénéré|régénéré|renommé|supprimé les?|lancé les? tests?)|"
    r"(?:he|hemos) (?:\w+ )?(?:actualizado|corregido|añadido|agregado|subido|reiniciado|revisado|probado|pedido|"
    r"reservado|"
    r"fusionado|limpiado|regenerado|ejecutado|lanzado)|"
    r"(?:actualicé|corregí|añadí|agregué|subí|reinicié|revisé|probé|ejecuté|limpié)|"
    r"(?:atualizei|corrigi|adicionei|subi|reiniciei|revisei|testei|executei|limpei|fiz (?:o|um) (?:push|commit|"
    r"deploy|merge|rebase))|"
    r"(?:ho|abbiamo) (?:\w+ )?(?:aggiornato|corretto|aggiunto|caricato|riavviato|controllato|verificato|testato|"
    r"sistemato|pushato|eseguito|ripulito|rigenerato|mandato|inviato|spedito|lanciato|aperto|finito|"
    r"fatto (?:il |un )?(?:push|commit|merge|deploy|rebase))|"
    # (A file's name may hold a dot: "Ich habe die config.yaml ... gespeichert".)
    r"(?:ich habe|ich hab|hab|wir haben)\b(?:[^.]|\.\w){0,60}\b(?:aktualisiert|behoben|korrigiert|hinzugefügt|gepusht|"
    r"angepasst|neu gestartet|weitergeleitet|geschickt|verschickt|gesendet|gespeichert|"
    r"geprüft|überprüft|getestet|committet|gemergt|aufgeräumt|ausgeführt)|"
    r"(?:ik heb|we hebben)\b(?:[^.]|\.\w){0,60}\b(?:bijgewerkt|opgelost|gecorrigeerd|toegevoegd|gepusht|herstart|"
    r"gecontroleerd|"
    r"getest|gecommit|gemerged|opgeschoond|uitgevoerd|ingescand|doorgestuurd|verstuurd|gestuurd)|"
    r"(?:jag har|vi har) (?:\w+ )?(?:uppdaterat|fixat|rättat|lagt till|pushat|startat om|kontrollerat|testat|kört|"
    r"skickat|bokat|mejlat)|"
    r"(?:zaktualizował|poprawił|dodał|wypchnął|wypchnęł|zrestartował|sprawdził|przetestował|uruchomił)(?:em|am|am)"
    r")\b",
    _I,
)
_OFFER_WORDS = re.compile(
    r"\b(?:si quieres|se quiser|wenn du willst|wenn du möchtest|si tu veux|se vuoi|als je wilt|om du vill|"
    r"jeśli chcesz|si lo prefieres|fais-moi signe|faites-moi signe|sag bescheid|avísame|fammi sapere|laat maar weten|"
    r"hör av dig|daj znać)\b",
    _I,
)
_SUMMARY = re.compile(
    r"^\W*(?:voici (?:le |la |un |une )?)?(?:resumen|resumo|zusammenfassung|récap\w*|résumé|riepilogo|samenvatting|"
    r"sammanfattning|podsumowanie)\b|^\W*ich fasse (?:kurz )?zusammen\b",
    _I,
)
_OUTPUT_LABEL = re.compile(
    r"^\W*(?:salida|saída|ausgabe|sortie|uscita|uitvoer|utdata|wynik|resultado)\b[^:]{0,30}:", _I
)


@dataclass(frozen=True)
class _Script:
    """How a turn gives itself away in a language written in its own script, read over the whole text (these
    scripts end a sentence with no space after it): a fact's marks keep it whatever else it holds."""

    letters: re.Pattern[str]  # the script's own letters: the text is in this language
    lasting: re.Pattern[str]  # every, always, never, because, must
    ack: re.Pattern[str]  # courtesy, thanks, apologies, "please wait"
    thinking: re.Pattern[str]  # a guess said to be one
    step: re.Pattern[str]  # the step now or next, still waiting, a summary

    def chatter(self, text: str) -> str | None:
        if self.lasting.search(text):
            return None
        if self.ack.search(text):
            return _ACK
        if self.thinking.search(text):
            return _THINKING
        if self.step.search(text):
            return _STEP
        return None


_SCRIPTS = (
    # Japanese (kana): "了解しました", "少々お待ちください", "たぶん", "今から", "次は", "作成中です", "まだ返事待ち".
    _Script(
        letters=re.compile(r"[\u3040-\u30ff]"),
        lasting=re.compile(r"毎|必ず|いつも|絶対|ので|ため|こと。?$|禁止|べき"),
        ack=re.compile(
            r"^\W*(?:了解(?:しました|です)?|承知(?:しました|いたしました)|かしこまりました|ありがとう|すみません|申し訳|"
            r"お疲れ|おはよう|こんにちは|こんばんは|よろしくお願い|どういたしまして)|お待ちください|疲れました|"
            r"いいアイデア|いいですね|素敵ですね|ありがとうございます"
        ),
        thinking=re.compile(r"たぶん|多分|かもしれません|かもね|でしょうか|ましょうか|と思います"),
        step=re.compile(
            r"(?:^|。)\W*(?:今から|今、|今は|次は|これから|まず)|(?:作成|確認|調査|対応|処理|実行|検索)中です|"
            r"(?:してい|調べてい|見てい|開いてい|待ってい)ます[。…!！\s]*$|(?:確認|検討|対応)します(?:ね|よ)?[。…!！\s]*$|"
            r"(?:調べ|見|探し)ますね[。…!！\s]*$|残り約?\d|あと\d+(?:時間|分)|連絡します|"
            r"まだ[^。]*(?:待ち|です|ません)|要約すると|まとめると|ているところ|完了しました|終わりました"
        ),
    ),
    # Korean (Hangul): "네, 지금 바로 확인해볼게요", "조금만 기다려 주세요", "아직 답이 없어요".
    _Script(
        letters=re.compile(r"[\uac00-\ud7af]"),
        lasting=re.compile(r"항상|반드시|매주|매일|매달|매년|때문에|절대|금지|해야 합니다"),
        ack=re.compile(r"^\W*(?:네|넵|알겠습니다|감사합니다|고마워요|죄송합니다)\b|기다려 주세요"),
        thinking=re.compile(r"아마|것 같아요|모르겠어요"),
        step=re.compile(
            r"지금|볼게요|할게요|을게요|드릴게요|하고 있어요|아직|중입니다|중이에요|좋은 하루|\d+% 정도|됐어요"
        ),
    ),
    # Russian (Cyrillic): "Сейчас пересобираю контейнер", "подождите", "до сих пор падает", "Хорошо, сделаю".
    _Script(
        letters=re.compile(r"[\u0400-\u04ff]"),
        lasting=re.compile(r"всегда|никогда|кажд|потому что|нельзя|обязательно|должн", re.IGNORECASE),
        ack=re.compile(r"^\W*(?:спасибо|хорошо|ок|ладно|понял|поняла|отлично|извините|простите)\b", re.IGNORECASE),
        thinking=re.compile(r"\b(?:может быть|наверное|кажется|не уверен)", re.IGNORECASE),
        step=re.compile(
            r"\b(?:сейчас|подождите|до сих пор|смотрю|пришлю|ещё не|еще не|проверяю|жду|всё ещё|все еще|осталось|"
            r"запускаю|ещё раз)",
            re.IGNORECASE,
        ),
    ),
    # Chinese (ideographs, no kana): "好的，我先看一下", "我正在比较", "稍后发给你".
    _Script(
        letters=re.compile(r"[\u4e00-\u9fff]"),
        lasting=re.compile(r"总是|必须|每|因为|不要|永远|禁止|一定要"),
        ack=re.compile(r"^\W*(?:好的|好|谢谢|收到|明白|没问题|不客气|抱歉|对不起)"),
        thinking=re.compile(r"可能|也许|大概|不确定"),
        step=re.compile(r"我先(?!生)|正在|稍后|等一下|马上|一下|还在"),  # ("我先生": my husband)
    ),
)


# Words only English uses among these languages: a sentence in plain ASCII holding two of them is English, and the
# English rules judge it (these patterns cost more than the rest of the noise rules together on English text).
_ENGLISH = frozenset(
    "the and of you this that with are have has i'm i'll i've it's don't we're what which would should could been "
    "their there they them your from".split()
)


def _english(sentence: str) -> bool:
    return sentence.isascii() and len(_ENGLISH.intersection(sentence.lower().split())) >= 2


def in_its_own_script(text: str) -> bool:
    """Is the text written mostly in one of `_SCRIPTS` (Japanese, Korean, Russian, Chinese)? The chatter head reads the
    bundled English model's vectors, which say little of such a text."""
    letters = sum(ch.isalpha() for ch in text)
    own = max(len(script.letters.findall(text)) for script in _SCRIPTS)
    return letters > 0 and own * 2 >= letters


def lasting_in_other_languages(text: str) -> bool:
    """Does a text not in English carry one of these languages' marks of a lasting fact (always, never, because,
    allergic)?"""
    return not _english(text) and bool(_LASTING.search(text))


def chatter_in_other_languages(sentence: str) -> str | None:
    """Why one sentence in one of these languages is chatter, or None."""
    if _english(sentence):
        return None
    for script in _SCRIPTS:  # the first script whose letters the text holds (kana before the ideographs they share)
        if script.letters.search(sentence):
            return script.chatter(sentence)
    if _LASTING.search(sentence):
        return None
    if _SUMMARY.match(sentence):
        return _STEP
    if _OUTPUT_LABEL.match(sentence):
        return _OUTPUT
    if (_COURTESY.match(sentence) and len(sentence.split()) <= 8) or _APOLOGY.match(sentence):
        return _ACK
    if _GUESS.search(sentence):
        return _THINKING
    if _OFFER_WORDS.search(sentence):
        return _OFFER
    if _NOW.search(sentence) or _DONE.match(sentence):
        return _STEP
    if _PASSIVE_DONE.search(sentence) and not _YEAR.search(sentence):
        return _STEP
    return None
