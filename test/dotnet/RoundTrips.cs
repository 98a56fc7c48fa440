// A .NET vendor's client against the gateway: every receipt operation posted with
// DataContractSerializer XML and with Newtonsoft.Json (PascalCase and camelCase settings),
// every answer (201, 422, 400) read back into the DTOs, values compared to the last digit.
//
// Usage: RoundTrips.exe <gateway url> <vendor token> <share account id> <its account number>
//        <loan id> <issue receipt no> <issue amount> <loan id> <issue receipt no> <issue amount>
// Prints one line per round trip ("ok <name>" or "FAIL <name>: <why>") and exits with the
// number of failures.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net;
using System.Runtime.Serialization;
using System.Text;
using CoreBanking.Dto;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;

public static class RoundTrips
{
    const string Deposit = "/api/transaction/savings/deposit";
    const string Payment = "/api/transaction/savings/payment";
    const string Reversal = "/api/transaction/loan/reversal";

    static string baseUrl, token;
    static int failures, passed;

    class Answer
    {
        public int Status;
        public string ContentType;
        public byte[] Body;
        public string Text { get { return Encoding.UTF8.GetString(Body); } }
    }

    static readonly JsonSerializerSettings Pascal = new JsonSerializerSettings { FloatParseHandling = FloatParseHandling.Decimal };
    static readonly JsonSerializerSettings Camel = new JsonSerializerSettings { FloatParseHandling = FloatParseHandling.Decimal, ContractResolver = new CamelCasePropertyNamesContractResolver() };

    static Answer Post(string path, string contentType, string accept, byte[] body)
    {
        var request = (HttpWebRequest)WebRequest.Create(baseUrl + path);
        request.Method = "POST";
        request.ContentType = contentType;
        request.Accept = accept;
        request.Headers.Add("X-Vendor-Token", token);
        request.Headers.Add("Idempotency-Key", Guid.NewGuid().ToString());
        using (var stream = request.GetRequestStream()) stream.Write(body, 0, body.Length);
        HttpWebResponse response;
        try { response = (HttpWebResponse)request.GetResponse(); }
        catch (WebException e) when (e.Response != null) { response = (HttpWebResponse)e.Response; }
        using (response)
        using (var stream = response.GetResponseStream())
        using (var copy = new MemoryStream())
        {
            stream.CopyTo(copy);
            return new Answer { Status = (int)response.StatusCode, ContentType = response.ContentType, Body = copy.ToArray() };
        }
    }

    static byte[] ToXml<T>(T value)
    {
        using (var stream = new MemoryStream())
        {
            new DataContractSerializer(typeof(T)).WriteObject(stream, value);
            return stream.ToArray();
        }
    }

    static T FromXml<T>(Answer answer)
    {
        using (var stream = new MemoryStream(answer.Body)) return (T)new DataContractSerializer(typeof(T)).ReadObject(stream);
    }

    static Answer PostXml<T>(string path, T dto) { return Post(path, "application/xml", "application/xml", ToXml(dto)); }

    static Answer PostJson<T>(string path, T dto, JsonSerializerSettings settings)
    {
        return Post(path, "application/json", "application/json", Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(dto, settings)));
    }

    static T FromJson<T>(Answer answer, JsonSerializerSettings settings) { return JsonConvert.DeserializeObject<T>(answer.Text, settings); }

    /** Decimals compared as text: 0.10 and 0.1 are equal numbers, but the client sent 0.10. */
    static string Money(decimal? value) { return value.HasValue ? value.Value.ToString(CultureInfo.InvariantCulture) : "null"; }

    static void Check(string name, Action body)
    {
        try
        {
            body();
            passed++;
            Console.WriteLine("ok " + name);
        }
        catch (Exception e)
        {
            failures++;
            Console.WriteLine("FAIL " + name + ": " + e.Message.Replace('\n', ' '));
        }
    }

    static void Expect(bool condition, string what) { if (!condition) throw new Exception(what); }

    static void ExpectStatus(Answer answer, int status)
    {
        if (answer.Status != status) throw new Exception("status " + answer.Status + ", not " + status + ": " + answer.Text);
    }

    static string Ref(string prefix) { return prefix + "-" + Guid.NewGuid().ToString("N").Substring(0, 12); }

    public static int Main(string[] args)
    {
        baseUrl = args[0].TrimEnd('/');
        token = args[1];
        int share = int.Parse(args[2]);
        string shareNumber = args[3];
        var loans = new[] {
            new { Id = int.Parse(args[4]), Issue = int.Parse(args[5]), Amount = decimal.Parse(args[6], CultureInfo.InvariantCulture) },
            new { Id = int.Parse(args[7]), Issue = int.Parse(args[8]), Amount = decimal.Parse(args[9], CultureInfo.InvariantCulture) },
        };

        Check("XML deposit (DataContractSerializer): 201, the receipt read back, 0.10 to the last digit, nulls as null", () => {
            var sent = new ReceiptPaymentDto { CUAccountID = share, Amount = 0.10m, ExternalRefNo = Ref("NET-XML") };
            var answer = PostXml(Deposit, sent);
            ExpectStatus(answer, 201);
            Expect(answer.Text.Contains("xmlns=\"" + Contract.Namespace + "\""), "answer not in the request's namespace");
            var receipt = FromXml<ReceiptPaymentDto>(answer);
            Expect(Money(receipt.Amount) == "0.10", "Amount " + Money(receipt.Amount));
            Expect(receipt.ReceiptNo > 0, "ReceiptNo " + receipt.ReceiptNo);
            Expect(receipt.CUAccountID == share, "CUAccountID " + receipt.CUAccountID);
            Expect(!receipt.HasOverride && receipt.ErrorMessage == null && receipt.Notes == null, "HasOverride/ErrorMessage/Notes");
            Expect(receipt.ExternalRefNo == sent.ExternalRefNo, "ExternalRefNo " + receipt.ExternalRefNo);
        });

        Check("XML deposit by AccountNumber with CUAccountID 0 (an unset int): 201", () => {
            var answer = PostXml(Deposit, new ReceiptPaymentDto { AccountNumber = shareNumber, Amount = 1.25m, Notes = "till 2", ExternalRefNo = Ref("NET-NUM") });
            ExpectStatus(answer, 201);
            var receipt = FromXml<ReceiptPaymentDto>(answer);
            Expect(Money(receipt.Amount) == "1.25" && receipt.Notes == "till 2" && receipt.AccountNumber == shareNumber, "echo " + answer.Text);
        });

        Check("XML payment with ArrearsDays and nested nulls: 201, lines, ArrearsDays and FingerPrintURL null read back", () => {
            var sent = new ReceiptSavingsDepositWebDto {
                CUAccountID = share, Amount = 25.10m, ReceiptType = AWReceiptType.SavingsDeposit, ExternalRefNo = Ref("NET-PAY"),
                ArrearsDays = new Dictionary<int, int> { { share, 3 }, { share + 1, 0 } },
            };
            var answer = PostXml(Payment, sent);
            ExpectStatus(answer, 201);
            var receipt = FromXml<ReceiptSavingsDepositWebDto>(answer);
            Expect(Money(receipt.Amount) == "25.10", "Amount " + Money(receipt.Amount));
            Expect(receipt.Principal != null && Money(receipt.Principal.CreditAmount) == "25.10", "Principal " + answer.Text);
            Expect(Money(receipt.Principal.ClosingBalance - receipt.Principal.OpenBalance) == "25.10", "balances");
            Expect(receipt.Accounts != null && receipt.Accounts.Count == 1, "Accounts");
            Expect(receipt.ArrearsDays != null && receipt.ArrearsDays.Count == 2 && receipt.ArrearsDays[share] == 3 && receipt.ArrearsDays[share + 1] == 0, "ArrearsDays " + answer.Text);
            Expect(receipt.FingerPrintURL == null && answer.Text.Contains("<FingerPrintURL i:nil=\"true\"/>"), "FingerPrintURL");
            Expect(receipt.ReceiptType == AWReceiptType.SavingsDeposit && receipt.ReceiptNo > 0, "ReceiptType/ReceiptNo");
        });

        Check("XML payment above the receipt limit: 422 read back, HasOverride and the TransactionOverrideDto", () => {
            var answer = PostXml(Payment, new ReceiptSavingsDepositWebDto { CUAccountID = share, Amount = 3000.00m, ReceiptType = AWReceiptType.SavingsDeposit, ExternalRefNo = Ref("NET-OVR") });
            ExpectStatus(answer, 422);
            var receipt = FromXml<ReceiptSavingsDepositWebDto>(answer);
            Expect(receipt.HasOverride, "HasOverride false");
            Expect(receipt.TransactionOverrides != null && receipt.TransactionOverrides.Count == 1, "TransactionOverrides " + answer.Text);
            Expect(Money(receipt.TransactionOverrides[0].Amount) == "3000.00", "override Amount " + Money(receipt.TransactionOverrides[0].Amount));
            Expect(receipt.TransactionOverrides[0].CUAccountID == share && !string.IsNullOrEmpty(receipt.TransactionOverrides[0].Message), "override fields");
        });

        Check("XML payment authorised by a supervisor: 201, the password never comes back", () => {
            var answer = PostXml(Payment, new ReceiptSavingsDepositWebDto { CUAccountID = share, Amount = 2600.00m, ReceiptType = AWReceiptType.SavingsDeposit, ExternalRefNo = Ref("NET-SUP"), OverrideUserName = "supervisor", OverridePassword = "Sandbox-Override-2025" });
            ExpectStatus(answer, 201);
            var receipt = FromXml<ReceiptSavingsDepositWebDto>(answer);
            Expect(receipt.OverridePassword == null && !answer.Text.Contains("Sandbox-Override-2025"), "password echoed");
            Expect(Money(receipt.Amount) == "2600.00" && !receipt.HasOverride, "Amount/HasOverride");
        });

        Check("XML deposit the gateway finds invalid: 400 read into the DTO, ErrorMessage names the field", () => {
            var answer = PostXml(Deposit, new ReceiptPaymentDto { CUAccountID = share, Amount = -5m, ExternalRefNo = Ref("NET-BAD") });
            ExpectStatus(answer, 400);
            var receipt = FromXml<ReceiptPaymentDto>(answer);
            Expect(receipt.ErrorMessage != null && receipt.ErrorMessage.Contains("Amount"), "ErrorMessage " + receipt.ErrorMessage);
            Expect(!receipt.HasOverride && Money(receipt.Amount) == "-5", "echo " + answer.Text);
        });

        Check("XML deposit the core finds invalid: 400 read into the DTO, ErrorMessage set", () => {
            var answer = PostXml(Deposit, new ReceiptPaymentDto { AccountNumber = "NO-SUCH-ACCOUNT", Amount = 1.00m, ExternalRefNo = Ref("NET-CORE") });
            ExpectStatus(answer, 400);
            var receipt = FromXml<ReceiptPaymentDto>(answer);
            Expect(receipt.ErrorMessage != null && receipt.ErrorMessage.Contains("NO-SUCH-ACCOUNT"), "ErrorMessage " + receipt.ErrorMessage);
        });

        Check("XML savings adjustment with Amount nil: the receipt taken back, 201", () => {
            var posted = FromXml<ReceiptPaymentDto>(PostXml(Deposit, new ReceiptPaymentDto { CUAccountID = share, Amount = 7.25m, ExternalRefNo = Ref("NET-ADJ") }));
            var answer = PostXml(Payment, new ReceiptSavingsDepositWebDto { CUAccountID = share, ReceiptNo = posted.ReceiptNo, ReceiptType = AWReceiptType.SavingsAdjustment, Notes = "keyed twice", ExternalRefNo = Ref("NET-ADJ") });
            ExpectStatus(answer, 201);
            var receipt = FromXml<ReceiptSavingsDepositWebDto>(answer);
            Expect(receipt.Principal != null && Money(receipt.Principal.DebitAmount) == "7.25", "Principal " + answer.Text);
        });

        Check("XML loan reversal: 201, Interest and LoanReversalOption read back", () => {
            var loan = loans[0];
            var answer = PostXml(Reversal, new ReceiptReversalWebDto {
                CUAccountID = loan.Id, Amount = loan.Amount, ReceiptNo = loan.Issue, LoanReversalOption = LoanStatusReversalOptions.Approved,
                LoanIssueReversalNotes = new Notes { Note = "Issued in error" }, ExternalRefNo = Ref("NET-REV"), ReceiptType = AWReceiptType.LoanIssue,
            });
            ExpectStatus(answer, 201);
            var receipt = FromXml<ReceiptReversalWebDto>(answer);
            Expect(Money(receipt.Amount) == Money(loan.Amount), "Amount " + Money(receipt.Amount));
            Expect(receipt.Interest != null && receipt.Principal != null && Money(receipt.Principal.CreditAmount) == Money(loan.Amount), "lines " + answer.Text);
            Expect(receipt.LoanReversalOption == LoanStatusReversalOptions.Approved && receipt.IsLoanAccount && receipt.ReceiptNo > 0, "fields");
            Expect(receipt.LoanIssueReversalNotes != null && receipt.LoanIssueReversalNotes.Note == "Issued in error", "notes");
        });

        foreach (var style in new[] { new { Name = "PascalCase", Settings = Pascal }, new { Name = "camelCase", Settings = Camel } })
        {
            var settings = style.Settings;
            Check("JSON deposit (Newtonsoft, " + style.Name + ", nulls included): 201, 0.10 to the last digit", () => {
                var answer = PostJson(Deposit, new ReceiptPaymentDto { CUAccountID = share, Amount = 0.10m, ExternalRefNo = Ref("NET-JSON") }, settings);
                ExpectStatus(answer, 201);
                var receipt = FromJson<ReceiptPaymentDto>(answer, settings);
                Expect(Money(receipt.Amount) == "0.10" && receipt.ReceiptNo > 0 && receipt.Notes == null, "receipt " + answer.Text);
            });

            Check("JSON payment (" + style.Name + ") with ArrearsDays: 201, lines and ArrearsDays read back", () => {
                var answer = PostJson(Payment, new ReceiptSavingsDepositWebDto { CUAccountID = share, Amount = 10.01m, ReceiptType = AWReceiptType.SavingsDeposit, ExternalRefNo = Ref("NET-JPAY"), ArrearsDays = new Dictionary<int, int> { { share, 12 } } }, settings);
                ExpectStatus(answer, 201);
                var receipt = FromJson<ReceiptSavingsDepositWebDto>(answer, settings);
                Expect(Money(receipt.Amount) == "10.01" && Money(receipt.Principal.CreditAmount) == "10.01", "amounts " + answer.Text);
                Expect(receipt.ArrearsDays != null && receipt.ArrearsDays[share] == 12, "ArrearsDays");
            });

            Check("JSON payment (" + style.Name + ") above the limit: 422 read back", () => {
                var answer = PostJson(Payment, new ReceiptSavingsDepositWebDto { CUAccountID = share, Amount = 3000.50m, ReceiptType = AWReceiptType.SavingsDeposit, ExternalRefNo = Ref("NET-JOVR") }, settings);
                ExpectStatus(answer, 422);
                var receipt = FromJson<ReceiptSavingsDepositWebDto>(answer, settings);
                Expect(receipt.HasOverride && receipt.TransactionOverrides.Count == 1 && Money(receipt.TransactionOverrides[0].Amount) == "3000.50", "override " + answer.Text);
            });

            Check("JSON deposit (" + style.Name + ") the gateway finds invalid: 400 read into the DTO with ErrorMessage", () => {
                var answer = PostJson(Deposit, new ReceiptPaymentDto { CUAccountID = share, Amount = 0.001m, ExternalRefNo = Ref("NET-JBAD") }, settings);
                ExpectStatus(answer, 400);
                var receipt = FromJson<ReceiptPaymentDto>(answer, settings);
                Expect(receipt.ErrorMessage != null && !receipt.HasOverride, "ErrorMessage " + answer.Text);
            });
        }

        Check("JSON loan reversal (camelCase): 201 read back", () => {
            var loan = loans[1];
            var answer = PostJson(Reversal, new ReceiptReversalWebDto {
                CUAccountID = loan.Id, Amount = loan.Amount, ReceiptNo = loan.Issue, LoanReversalOption = LoanStatusReversalOptions.CancelApplication,
                LoanIssueReversalNotes = new Notes { Note = "Member changed their mind" }, ExternalRefNo = Ref("NET-JREV"), ProductTypeID = ProductTypes.Loan,
            }, Camel);
            ExpectStatus(answer, 201);
            var receipt = FromJson<ReceiptReversalWebDto>(answer, Camel);
            Expect(receipt.LoanReversalOption == LoanStatusReversalOptions.CancelApplication && receipt.ProductTypeID == ProductTypes.Loan, "enums " + answer.Text);
            Expect(Money(receipt.Amount) == Money(loan.Amount) && Money(receipt.Principal.CreditAmount) == Money(loan.Amount), "amounts " + answer.Text);
        });

        Console.WriteLine(passed + " round trips passed, " + failures + " failed");
        return failures;
    }
}
